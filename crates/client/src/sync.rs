//! CSV sync (being written).
