//! Runs workloads on indexes and reports what the device did.
