//! Nothing: this package exists for its benchmark, `ops.rs` (`cargo bench -p typed-tensor-benches`).
