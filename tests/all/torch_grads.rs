//! PyTorch's gradients for 210 random programs (`tests/data/torch_grads/`): chains of 1 to 9
//! ops over 1 to 3 leaves of random shapes (0-d included), mixing element-wise ops, broadcasting
//! binary ops, views (of broadcast views too), reductions with axes and keepdim, scans,
//! softmax, norms, matmul, combiners and indexing. Each program is replayed here with
//! `requires_grad` leaves; `backward` of `sum(out * w)` must give PyTorch 2.15's leaf gradients
//! (float64) within 1e-6 relative (1e-4 for programs that round through f32).

use crate::torch_grad_ops::{T, step};
use std::collections::BTreeMap;
use typed_tensor::dynamic::DynTensor;
use typed_tensor::io::load_npz;
use typed_tensor::prelude::*;

/// Replays one program; the gradients of its leaves.
fn replay(
    arrays: &BTreeMap<String, DynTensor>,
    p: &str,
    leaves: usize,
    lines: &[&str],
) -> Result<Vec<Vec<f64>>> {
    let get = |k: String| arrays[&k].clone().downcast::<f64, Cpu>();
    let xs: Vec<T> = (0..leaves)
        .map(|i| get(format!("p{p}_x{i}"))?.with_requires_grad(true))
        .collect::<Result<_>>()?;
    let out = run(lines, &xs)?;
    out.try_mul(&get(format!("p{p}_w"))?)?
        .try_sum(&[], false)?
        .try_backward()?;
    xs.iter()
        .map(|x| match x.grad_tensor() {
            Some(g) => g.try_to_vec(),
            None => Ok(vec![0.0; x.numel()]),
        })
        .collect()
}

/// A program: its id, its number of leaves and its steps.
type Program<'a> = (&'a str, usize, Vec<&'a str>);

/// The arrays and the program text of `cases{suffix}.npz` and `programs{suffix}.txt`.
fn fixture(suffix: &str) -> (BTreeMap<String, DynTensor>, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/torch_grads");
    let arrays = load_npz(format!("{dir}/cases{suffix}.npz")).unwrap();
    let text = std::fs::read_to_string(format!("{dir}/programs{suffix}.txt")).unwrap();
    (arrays, text)
}

fn programs(text: &str) -> Vec<Program<'_>> {
    let mut programs: Vec<Program<'_>> = Vec::new();
    for line in text.lines() {
        match line.strip_prefix('#') {
            Some(head) => {
                let (p, n) = head.split_once(' ').unwrap();
                programs.push((p, n.parse().unwrap(), Vec::new()));
            }
            None => programs.last_mut().unwrap().2.push(line),
        }
    }
    programs
}

/// The program's output from its leaves `xs`.
fn run(lines: &[&str], xs: &[T]) -> Result<T> {
    let mut stack = xs.to_vec();
    for line in lines {
        let f: Vec<&str> = line.split('|').collect();
        let ids: Vec<usize> = f[1].split(',').map(|v| v.parse().unwrap()).collect();
        let args: Vec<&T> = ids.iter().map(|&i| &stack[i]).collect();
        let y = step(f[0], &args, &f[2..])?;
        stack.push(y);
    }
    Ok(stack.pop().expect("a program has a step"))
}

/// Replays every program of `programs{suffix}.txt` against `cases{suffix}.npz`; the failures.
fn replay_fixture(suffix: &str) -> (usize, Vec<String>) {
    let (arrays, text) = fixture(suffix);
    let programs = programs(&text);
    let mut failures = Vec::new();
    for (p, leaves, lines) in &programs {
        let tol = if lines.iter().any(|l| l.starts_with("cast")) {
            1e-4
        } else {
            1e-6
        };
        let grads = match replay(&arrays, p, *leaves, lines) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("program {p} {lines:?}: {e}"));
                continue;
            }
        };
        for (i, got) in grads.iter().enumerate() {
            let want = arrays[&format!("p{p}_g{i}")].to_vec::<f64>().unwrap();
            let close = |(a, b): (&f64, &f64)| {
                (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * b.abs() + 1e-8
            };
            if got.len() != want.len() || !got.iter().zip(&want).all(close) {
                failures.push(format!(
                    "program {p} {lines:?}, leaf {i}: {got:?} against {want:?}"
                ));
            }
        }
    }
    (programs.len(), failures)
}

#[test]
fn gradients_match_pytorch_on_random_programs() {
    let (n, failures) = replay_fixture("");
    assert!(
        failures.is_empty(),
        "{} of {n} programs differ from PyTorch:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// 545 single-op cases (`tests/data/torch_grads/README.md`): the NN functions (convolutions
/// with stride, padding, dilation and groups; pooling, adaptive included; layer, RMS, batch
/// and group norm; every loss and reduction; linear; embedding; the activations, at their
/// kinks too), the combiners, the products, `einsum`, the linalg ops, sort/topk values, the
/// scalar forms and the composites; their inputs are often transposed, stepped or broadcast
/// views of the leaves.
#[test]
fn nn_and_combiner_gradients_match_pytorch() {
    let (n, failures) = replay_fixture("_nn");
    assert!(
        failures.is_empty(),
        "{} of {n} cases differ from PyTorch:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The random programs' second derivatives: each program's gradients recorded with
/// `create_graph` against central differences of its plain gradients (`gradgradcheck`), at
/// PyTorch's inputs. (The NN cases sit at the activations' kinks on purpose, where differences
/// of gradients cross the kink, so they are not checked so.)
#[test]
fn random_programs_second_derivatives() {
    let (arrays, text) = fixture("");
    let mut failures = Vec::new();
    let programs = programs(&text);
    for (p, leaves, lines) in &programs {
        let get = |k: String| arrays[&k].clone().downcast::<f64, Cpu>().unwrap();
        let xs: Vec<T> = (0..*leaves).map(|i| get(format!("p{p}_x{i}"))).collect();
        let finite = xs.iter().all(|t| t.to_vec().iter().all(|v| v.is_finite()));
        if !finite || lines.iter().any(|l| l.starts_with("cast")) {
            continue;
        }
        let f = |xs: &[T]| run(lines, xs);
        if let Err(e) = typed_tensor::autograd::gradgradcheck(f, &xs, 1e-5, 1e-4) {
            failures.push(format!("program {p} {lines:?}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs' second derivatives differ:\n{}",
        failures.len(),
        programs.len(),
        failures.join("\n")
    );
}
