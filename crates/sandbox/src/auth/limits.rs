//! Login attempt limits per account. (Being built: see issue 2.)

/// Failed sign-in attempts per account.
#[derive(Debug, Default)]
pub struct LoginLimiter {}
