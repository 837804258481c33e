//! [`redacted_debug!`]: `Debug` for types holding patient data (names, dates of
//! birth, contact details, clinical entries, sigs) that prints only the fields
//! named — ids, states — and `..` for the rest. A type holding patient data
//! never derives `Debug`; it uses this, so no `{:?}` in a log line, an error or
//! a panic can carry patient data. Its test, on the Network API's inputs, is in
//! `network/calls.rs`.

/// Implements `Debug` printing only the listed fields:
///
/// ```
/// struct Patient { id: String, name: String }
/// rxdesk_client::redacted_debug! { Patient { id } }
/// let shown = format!("{:?}", Patient { id: "pat_1".into(), name: "Rosa".into() });
/// assert_eq!(shown, r#"Patient { id: "pat_1", .. }"#);
/// ```
#[macro_export]
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
