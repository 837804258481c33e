//! The compatibility check's verdict, in the UI's terms.

use rxdesk_client::network::Compatibility;

use crate::ipc::{FailingOperation, NetworkCheck};

/// The compatibility check's verdict, in the UI's terms.
pub fn network_check(report: &Compatibility) -> NetworkCheck {
    if report.works() {
        return NetworkCheck::Compatible;
    }
    NetworkCheck::Incompatible {
        failing: report
            .failing()
            .map(|o| FailingOperation {
                operation: o.operation.clone(),
                problems: o
                    .problem
                    .iter()
                    .flat_map(|p| p.lines())
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned)
                    .collect(),
            })
            .collect(),
    }
}
