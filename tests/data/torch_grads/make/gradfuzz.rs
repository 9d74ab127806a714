//! The harness: replays `/tmp/gf/progs.txt` on `/tmp/gf/in.npz` and writes the leaves'
//! gradients to `/tmp/gf/out.npz` (copy into `examples/` and run from the repository root; see
//! `../README.md`).
#[path = "../tests/all/torch_grad_ops.rs"]
mod torch_grad_ops;
use std::collections::BTreeMap;
use torch_grad_ops::{T, step};
use typed_tensor::dynamic::DynTensor;
use typed_tensor::io::{load_npz, save_npz};
use typed_tensor::prelude::*;

fn main() {
    let ins = load_npz("/tmp/gf/in.npz").unwrap();
    let get = |k: &str| -> T { ins[k].clone().downcast::<f64, Cpu>().unwrap() };
    let text = std::fs::read_to_string("/tmp/gf/progs.txt").unwrap();
    let mut out: BTreeMap<String, DynTensor> = BTreeMap::new();
    let mut errs = String::new();
    let mut blocks: Vec<(String, usize, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix('#') {
            let mut it = h.split(' ');
            blocks.push((it.next().unwrap().to_string(), it.next().unwrap().parse().unwrap(), vec![]));
        } else { blocks.last_mut().unwrap().2.push(line.to_string()); }
    }
    for (p, nl, lines) in blocks {
        let leaves: Vec<T> = (0..nl).map(|i| get(&format!("p{p}_x{i}")).with_requires_grad(true).unwrap()).collect();
        let r = (|| -> Result<()> {
            let mut stack: Vec<T> = leaves.clone();
            for line in &lines {
                let f: Vec<&str> = line.split('|').collect();
                let ids: Vec<usize> = f[1].split(',').map(|v| v.parse().unwrap()).collect();
                let xs: Vec<&T> = ids.iter().map(|&i| &stack[i]).collect();
                let y = step(f[0], &xs, &f[2..])?;
                stack.push(y);
            }
            let y = stack.last().unwrap();
            let w = get(&format!("p{p}_w"));
            y.try_mul(&w)?.try_sum(&[], false)?.try_backward()
        })();
        match r {
            Ok(()) => for (i, t) in leaves.iter().enumerate() {
                let g = t.grad_tensor().unwrap_or_else(|| Tensor::zeros(t.dims()).unwrap());
                out.insert(format!("p{p}_g{i}"), DynTensor::from(g));
            },
            Err(e) => errs.push_str(&format!("p{p}: {e}\n")),
        }
    }
    save_npz("/tmp/gf/out.npz", out).unwrap();
    std::fs::write("/tmp/gf/errs.txt", errs).unwrap();
}
