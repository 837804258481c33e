//! `cargo xtask bench`: Rx Desk measured against references built and
//! measured in the same run — an empty Tauri 2 app, a bare HTTP handler, one
//! signature, a Get round trip, the token contract — written as
//! `target/bench/report.md` and `report.json`. One figure per module; the
//! statistics ([`stats`]) and the report ([`report`]) are pure and tested.

pub mod api;
pub mod day;
pub mod empty_app;
pub mod felt;
pub mod graphql_floor;
pub mod gui;
pub mod link_map;
pub mod machine;
pub mod machine_tokens;
pub mod memory;
pub mod network;
pub mod plan;
pub mod profile;
pub mod report;
pub mod search;
pub mod signing;
pub mod size;
pub mod stack_app;
pub mod startup;
pub mod stats;
pub mod ui_size;

pub use report::check_report_shape;
