//! [`ControlState`]: what every control handler can reach. Add a field here when
//! a new control route needs another piece of the running sandbox.

use crate::after_send::AfterSend;
use crate::link::Link;
use crate::state::AppState;

/// Cheap to clone; one per running control endpoint.
#[derive(Debug, Clone)]
pub(crate) struct ControlState {
    /// The sandbox's shared state (database, catalog, configuration).
    #[allow(dead_code, reason = "for the control routes that act on records")]
    pub app: AppState,
    /// The link layer's handle.
    pub link: Link,
    /// The simulated pharmacy, its test clock and the webhooks.
    pub after_send: AfterSend,
}
