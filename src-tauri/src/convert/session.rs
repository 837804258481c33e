//! Sign-in failures and the session, as the UI may know them (never the token).

use rxdesk_client::{ClientError, Session, SignInError};

use crate::ipc::{SessionInfo, SignInFailure};

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
    }
}
