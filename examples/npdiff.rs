//! The harness: applies the ops of a spec to npz inputs (copy into `examples/` and run from the
//! repository root; see `../README.md`).
#[path = "../tests/all/numpy_ops.rs"]
mod numpy_ops;
use numpy_ops::run;
use std::collections::BTreeMap;
use typed_tensor::dynamic::DynTensor;
use typed_tensor::io::{load_npz, save_npz};

fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let inputs = load_npz(format!("{dir}/in.npz")).unwrap();
    let spec = std::fs::read_to_string(format!("{dir}/spec.txt")).unwrap();
    let mut out: BTreeMap<String, DynTensor> = BTreeMap::new();
    let mut errs = String::new();
    for line in spec.lines() {
        let f: Vec<&str> = line.split('|').collect();
        let (id, op) = (f[0], f[1]);
        let xs: Vec<DynTensor> = f[2]
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|k| {
                let (k, tr) = match k.strip_suffix(".T") {
                    Some(k) => (k, true),
                    None => (k, false),
                };
                let t = inputs[k].clone();
                if tr {
                    let n = t.ndim() as i64;
                    let perm: Vec<i64> = (0..n).rev().collect();
                    t.permute(&perm).unwrap()
                } else {
                    t
                }
            })
            .collect();
        let params: Vec<&str> = f[3..].to_vec();
        let snapshot: Vec<Vec<u8>> = xs
            .iter()
            .map(|t| typed_tensor::io::npy_to_bytes(t.clone()).unwrap_or_default())
            .collect();
        match std::panic::catch_unwind(|| run(op, &xs, &params)) {
            Ok(Ok(rs)) => {
                for (i, r) in rs.into_iter().enumerate() {
                    out.insert(format!("{id}_{i}"), r);
                }
            }
            Ok(Err(e)) => errs.push_str(&format!("{id}|ERR|{e}\n")),
            Err(_) => errs.push_str(&format!("{id}|PANIC|\n")),
        }
        for (t, s) in xs.iter().zip(&snapshot) {
            if &typed_tensor::io::npy_to_bytes(t.clone()).unwrap_or_default() != s {
                errs.push_str(&format!("{id}|MUTATED|\n"));
            }
        }
    }
    save_npz(format!("{dir}/out.npz"), out).unwrap();
    std::fs::write(format!("{dir}/errs.txt"), errs).unwrap();
}
