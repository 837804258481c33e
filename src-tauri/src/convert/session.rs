//! Sign-in failures and the session, as the UI may know them (never the token).

use rxdesk_client::{ClientError, ClockOffset, Session, SignInError};

use crate::ipc::{SessionInfo, SignInFailure, WrongClock};

/// Why sign-in failed, in the UI's terms, and the message to show.
pub fn sign_in_failure(e: &SignInError) -> (SignInFailure, String) {
    let reason = match e {
        SignInError::Denied { .. } => SignInFailure::AccessDenied,
        SignInError::TimedOut => SignInFailure::Timeout,
        SignInError::Cancelled => SignInFailure::Cancelled,
        SignInError::Client(ClientError::Network { .. } | ClientError::Untrusted { .. }) => {
            SignInFailure::Network
        }
        SignInError::Authorization { .. }
        | SignInError::Listener { .. }
        | SignInError::Client(_) => SignInFailure::Other,
    };
    (reason, e.to_string())
}

/// What the UI may know about a session.
pub fn session_info(environment_id: &str, session: &Session) -> SessionInfo {
    let expires = time::OffsetDateTime::from(session.expires_at());
    SessionInfo {
        environment_id: environment_id.to_owned(),
        subject: Some(session.user().id.clone()).filter(|sub| !sub.trim().is_empty()),
        user_name: session.user().name.clone(),
        user_email: session.user().email.clone().unwrap_or_default(),
        role: session.user().role.clone().unwrap_or_default(),
        organization_id: session.organization().id.clone(),
        organization_name: session.organization().name.clone(),
        permissions: session.permissions().to_vec(),
        expires_at: expires
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
        wrong_clock: wrong_clock(session.clock_offset()),
    }
}

/// The clock warning for an offset measured at sign-in: only beyond the leeway.
fn wrong_clock(offset: Option<ClockOffset>) -> Option<WrongClock> {
    let offset = offset.filter(ClockOffset::is_wrong)?;
    let network_ahead = offset.network_ahead_secs();
    Some(WrongClock {
        minutes: u32::try_from(network_ahead.unsigned_abs().div_ceil(60)).unwrap_or(u32::MAX),
        ahead: network_ahead < 0,
    })
}

#[cfg(test)]
mod clock_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn offset(network_ahead_secs: i64) -> Option<ClockOffset> {
        Some(serde_json::from_value(serde_json::json!(network_ahead_secs)).unwrap())
    }

    #[test]
    fn a_clock_ten_minutes_off_is_not_called_wrong() {
        assert_eq!(wrong_clock(offset(600)), None);
        assert_eq!(wrong_clock(offset(-600)), None);
    }

    #[test]
    fn a_clock_an_hour_ahead_of_the_network_is_called_an_hour_ahead() {
        assert_eq!(
            wrong_clock(offset(-3600)),
            Some(WrongClock {
                minutes: 60,
                ahead: true
            })
        );
    }

    #[test]
    fn a_clock_behind_the_network_is_called_behind_in_whole_minutes_rounded_up() {
        assert_eq!(
            wrong_clock(offset(20 * 60 + 1)),
            Some(WrongClock {
                minutes: 21,
                ahead: false
            })
        );
    }

    #[test]
    fn an_unmeasured_clock_is_not_called_wrong() {
        assert_eq!(wrong_clock(None), None);
    }
}
