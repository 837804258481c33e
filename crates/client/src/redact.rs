//! [`redacted_debug!`]: `Debug` for types holding patient data (names, dates of
//! birth, contact details, clinical entries, sigs) that prints only the fields
//! named — ids, states — and `..` for the rest. A type holding patient data
//! never derives `Debug`; it uses this, so no `{:?}` in a log line, an error or
//! a panic can carry patient data.

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

#[cfg(test)]
mod tests {
    use crate::network::PatientSearch;
    use crate::network::documents::{
        AllergyReferenceInput, HumanNameInput, PatientClinicalInput, PatientDemographicInput,
        PatientInput, PrescriptionInput,
    };

    #[test]
    fn printing_a_patient_input_shows_no_patient_data() {
        let input = PatientInput {
            demographic: Some(PatientDemographicInput {
                name: Some(HumanNameInput {
                    first: Some("Rosa".into()),
                    last: Some("Delgado".into()),
                    ..Default::default()
                }),
                email: Some("rosa.delgado@example.org".into()),
                phone: Some("+16175550142".into()),
                ..Default::default()
            }),
            clinical: Some(PatientClinicalInput {
                allergies: Some(crate::network::documents::AllergiesPatch {
                    add: Some(vec![AllergyReferenceInput {
                        name: Some("Penicillins".into()),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        let search = PatientSearch {
            last: Some("Delgado".into()),
            ..Default::default()
        };
        let draft = PrescriptionInput {
            instructions: Some("One capsule three times daily".into()),
            ..Default::default()
        };

        let printed = format!("{input:?} {search:?} {draft:?}");

        for secret in [
            "Rosa",
            "Delgado",
            "rosa.delgado",
            "5550142",
            "Penicillins",
            "capsule",
        ] {
            assert!(!printed.contains(secret), "{secret} in {printed}");
        }
    }
}
