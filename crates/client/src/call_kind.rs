//! [`CallKind`]: what a call to the network does, which decides its deadline
//! and number of attempts (`retry`) and is named in a timed-out call's error
//! (`error`). Here, below both, so neither depends on the other for it.

/// What a call does, for its deadline and number of attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallKind {
    /// Gets, look-ups, searches, `ping`, introspection.
    Read,
    /// Creates and updates (patients, drafts, orders, Send, Cancel).
    Write,
    /// A prescriber's signature.
    Sign,
    /// A token from the authorization server (machine tokens).
    Token,
}

impl CallKind {
    pub(crate) fn index(self) -> usize {
        match self {
            Self::Read => 0,
            Self::Write => 1,
            Self::Sign => 2,
            Self::Token => 3,
        }
    }

    /// `read`, `write`, `sign`, `token`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Sign => "sign",
            Self::Token => "token",
        }
    }
}

impl std::fmt::Display for CallKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
