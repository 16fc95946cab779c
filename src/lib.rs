//! hookharness
pub mod scenario;
