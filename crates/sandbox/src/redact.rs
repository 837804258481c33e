//! [`redacted_debug!`]: `Debug` for the types holding patient data (names,
//! dates of birth, contact details, clinical entries, sigs) that prints only
//! the fields named — ids, states — and `..` for the rest. Such a type never
//! derives `Debug`, so no `{:?}` in a log line, an error or a panic carries
//! patient data. (The client has its own copy: the two crates share no code.)
//! Its test is beside the types it is used on (`store/records.rs`).

/// Implements `Debug` printing only the listed fields. Named by its path
/// (`crate::redact::redacted_debug!`), not exported at the crate's root, so
/// the modules that use it depend on this file alone.
macro_rules! redacted_debug {
    ($($ty:ident { $($field:ident),* $(,)? })*) => {$(
        impl ::std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    $(.field(stringify!($field), &self.$field))*
                    .finish_non_exhaustive()
            }
        }
    )*};
}

pub(crate) use redacted_debug;
