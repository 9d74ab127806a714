//! Compile-fail tests: misuse that the type system rejects, with the messages users see
//! (snapshots in `ui-tests/fail/*.stderr`, tied to the toolchain pinned in
//! `rust-toolchain.toml`). Regenerate with `TRYBUILD=overwrite cargo test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/fail/*.rs");
    t.pass("ui-tests/pass/*.rs");
}
