//! [`redacted_debug!`]: `Debug` for the types holding patient data (names,
//! dates of birth, contact details, clinical entries, sigs) that prints only
//! the fields named — ids, states — and `..` for the rest. Such a type never
//! derives `Debug`, so no `{:?}` in a log line, an error or a panic carries
//! patient data. (The client has its own copy: the two crates share no code.)

/// Implements `Debug` printing only the listed fields.
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

#[cfg(test)]
mod tests {
    use crate::store::records::{EntryDoc, PatientDoc};

    #[test]
    fn printing_a_stored_patient_shows_no_patient_data() {
        let patient = PatientDoc {
            id: "pat_1".into(),
            first: Some("Rosa".into()),
            last: Some("Delgado".into()),
            date_of_birth: Some("1988-04-17".into()),
            email: Some("rosa.delgado@example.org".into()),
            allergies: vec![EntryDoc {
                id: "alg_1".into(),
                name: "Penicillins".into(),
                code: None,
                coded: true,
                status: None,
            }],
            ..PatientDoc::default()
        };

        let printed = format!("{patient:?} {:?}", patient.allergies);

        assert!(printed.contains("pat_1"), "{printed}");
        for secret in ["Rosa", "Delgado", "1988", "rosa.delgado", "Penicillins"] {
            assert!(!printed.contains(secret), "{secret} in {printed}");
        }
    }
}
