//! The built-in catalog of medications and pharmacies. (Being built: see issue 3.)

use crate::fixture::Fixture;
use crate::store::{Db, StoreError};

pub async fn seed(_db: &Db, _fixture: &Fixture) -> Result<(), StoreError> {
    Ok(())
}
