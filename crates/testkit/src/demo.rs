//! The demo fixture's accounts, organizations, clients and catalog ids, as the
//! sandbox's built-in fixture defines them (and `tests/fixtures/network.toml`
//! repeats them).

/// Password of every demo account.
pub const PASSWORD: &str = "rxdesk-demo";
/// Demo prescriber in both organizations.
pub const ADA: &str = "ada@maple.example";
/// Demo prescriber in Birch Family Practice only.
pub const BEN: &str = "ben@birch.example";
/// Demo medical-operations user in Maple Street Clinic only.
pub const MO: &str = "mo@maple.example";
/// The organizations, by the name their sign-in buttons show.
pub const MAPLE: &str = "Maple Street Clinic";
pub const BIRCH: &str = "Birch Family Practice";
/// Maple Street Clinic's organization id.
pub const MAPLE_ID: &str = "org_maple";
/// The demo Application (public client) and the audience it asks for.
pub const DESKTOP_CLIENT: &str = "rxdesk-desktop";
pub const AUDIENCE: &str = "rxdesk-sandbox";
/// The organizations' backends (client credentials): id and secret.
pub const MAPLE_BACKEND: (&str, &str) = ("maple-backend", "maple-backend-secret");
pub const BIRCH_BACKEND: (&str, &str) = ("birch-backend", "birch-backend-secret");
/// The catalog's azithromycin 250 mg tablet, in every fixture.
pub const AZITHROMYCIN: &str = "med_azithromycin_250_tab";
