//! hookharness
