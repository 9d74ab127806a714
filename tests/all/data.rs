//! `data::DataLoader` and `random_split` (PyTorch's `DataLoader` over a `TensorDataset`, and
//! `random_split`) on every device: each epoch visits every sample once, in order or in a
//! seeded permutation, batches keep inputs and targets aligned; the refusals.

use typed_tensor::data::{DataLoader, random_split};
use typed_tensor::prelude::*;

#[test]
fn data_loader_batches_every_sample_once() {
    on_every_device!("data_loader", |dev| {
        let n = 11usize;
        let x = Tensor::<f32, _>::from_vec_on((0..2 * n).map(|v| v as f32).collect(), [n, 2], &dev)
            .unwrap();
        let y = Tensor::<i64, _>::from_vec_on((0..n as i64).collect(), [n], &dev).unwrap();
        // In order: batches of 4, 4, 3; drop_last leaves 2.
        let loader = DataLoader::new((x.clone(), y.clone()), 4).unwrap();
        assert_eq!((loader.len(), loader.num_samples()), (3, n));
        let sizes: Vec<usize> = loader
            .iter()
            .unwrap()
            .map(|b| b.unwrap().1.numel())
            .collect();
        assert_eq!(sizes, [4, 4, 3]);
        assert_eq!(loader.clone().drop_last(true).len(), 2);
        let first = loader.iter().unwrap().next().unwrap().unwrap();
        assert_eq!(first.1.try_to_vec().unwrap(), [0, 1, 2, 3]);
        // Shuffled: a permutation, inputs still aligned with targets (row i is 2i, 2i + 1).
        let shuffled = loader.clone().shuffle(true);
        let mut seen = Vec::new();
        for batch in shuffled.iter().unwrap() {
            let (xb, yb) = batch.unwrap();
            let (xv, yv) = (xb.try_to_vec().unwrap(), yb.try_to_vec().unwrap());
            for (k, &i) in yv.iter().enumerate() {
                assert_eq!(
                    (xv[2 * k], xv[2 * k + 1]),
                    ((2 * i) as f32, (2 * i + 1) as f32)
                );
            }
            seen.extend(yv);
        }
        let mut sorted = seen.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n as i64).collect::<Vec<_>>());
        // The same seed, the same epoch order.
        let order = |l: &DataLoader<(Tensor<f32, _>, Tensor<i64, _>)>| {
            l.iter()
                .unwrap()
                .flat_map(|b| b.unwrap().1.try_to_vec().unwrap())
                .collect::<Vec<_>>()
        };
        assert!(crate::common::reproducible(5, || order(&shuffled)));
        // A single tensor is a dataset too; an empty one has no batches.
        let single = DataLoader::new(y.clone(), 20).unwrap();
        assert_eq!(single.iter().unwrap().count(), 1);
        let empty = Tensor::<f32, _>::zeros_on([0, 3], &dev).unwrap();
        let none = DataLoader::new(empty, 2).unwrap();
        assert!(none.is_empty() && none.iter().unwrap().next().is_none());

        // random_split: the parts partition the samples, aligned.
        let parts = random_split(&(x.clone(), y.clone()), &[6, 0, 5]).unwrap();
        assert_eq!(
            parts.iter().map(|p| p.1.numel()).collect::<Vec<_>>(),
            [6, 0, 5]
        );
        let mut all: Vec<i64> = parts
            .iter()
            .flat_map(|p| p.1.try_to_vec().unwrap())
            .collect();
        all.sort_unstable();
        assert_eq!(all, (0..n as i64).collect::<Vec<_>>());
        let xs = parts[2].0.try_to_vec().unwrap();
        let ys = parts[2].1.try_to_vec().unwrap();
        assert!(
            ys.iter()
                .enumerate()
                .all(|(k, &i)| xs[2 * k] == (2 * i) as f32)
        );

        // Refusals: batch size 0, rows that disagree, 0-d data, lengths that do not add up.
        let e = DataLoader::new(y.clone(), 0).err().unwrap().to_string();
        assert!(e.contains("batch_size"), "{e}");
        let short = y.narrow(0, 0, 3).unwrap();
        let e = DataLoader::new((x.clone(), short), 2)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("same number of rows") && e.contains("11") && e.contains('3'),
            "{e}"
        );
        let scalar = Tensor::<f32, _>::from_vec_on(vec![1.0], [], &dev).unwrap();
        assert!(DataLoader::new(scalar, 1).is_err());
        let e = random_split(&y, &[5, 5]).unwrap_err().to_string();
        assert!(e.contains("add up") && e.contains("11"), "{e}");
        assert!(random_split(&y, &[usize::MAX, 12]).is_err());
    });
}

/// `Generator` (PyTorch `torch.Generator`): its draws equal the global generator's from the
/// same seed, leave the global one alone, nest, survive a panic, stay on the calling thread,
/// and replay through `checkpoint`. The global generator is shared with the other test
/// threads, so the checks on it are "one of eight tries"; those on scopes are exact.
#[test]
fn generators_draw_apart_from_the_global_one() {
    use typed_tensor::{Generator, get_rng_state, manual_seed, set_rng_state};
    on_every_device!("generators", |dev| {
        let draw = || {
            let t = Tensor::<f32, _>::randn_on([5], &dev).unwrap();
            t.to_device(&Cpu).unwrap().to_vec()
        };
        let mut g = Generator::new();
        assert_eq!(g.initial_seed(), 67280421310721); // PyTorch's default seed
        assert!((0..8).any(|_| {
            manual_seed(11);
            let global = draw();
            global == g.manual_seed(11).run(draw)
        }));
        assert_eq!(g.initial_seed(), 11);
        // The global generator does not move inside a scope.
        assert!((0..8).any(|_| {
            let before = get_rng_state();
            g.run(draw);
            let next = draw();
            set_rng_state(&before);
            draw() == next
        }));
        // The scope's generator carries on from call to call, and only inside scopes.
        let saved = g.get_state();
        let first = g.run(draw);
        draw();
        let second = g.run(draw);
        let mut copy = Generator::new();
        copy.set_state(&saved);
        assert_eq!(copy.run(|| (draw(), draw())), (first, second));

        // Nesting: the innermost draws; the outer keeps its state.
        let mut inner = Generator::new();
        let reference = inner.manual_seed(11).run(draw);
        let saved = g.get_state();
        assert_eq!(g.run(|| inner.manual_seed(11).run(draw)), reference);
        copy.set_state(&saved);
        assert_eq!(g.run(draw), copy.run(draw));

        // A panic leaves no scope open: later draws outside do not advance `g`.
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            g.run(|| {
                draw();
                panic!("inside the scope")
            })
        }));
        assert!(caught.is_err());
        let saved = g.get_state();
        draw();
        copy.set_state(&saved);
        assert_eq!(g.run(draw), copy.run(draw));

        // Other threads draw from the global generator meanwhile.
        let saved = g.get_state();
        let in_scope = g.run(|| {
            std::thread::scope(|s| s.spawn(draw).join().unwrap());
            draw()
        });
        copy.set_state(&saved);
        assert_eq!(copy.run(draw), in_scope);

        // `checkpoint` replays a scope's dropout in a backward run under another generator.
        let x = Tensor::<f32, _>::ones_on([64], &dev).unwrap();
        let x = x.with_requires_grad(true).unwrap();
        let drop = |v: &[Tensor<f32, _>]| typed_tensor::nn::dropout(&v[0], 0.5, true);
        let y = g
            .manual_seed(5)
            .run(|| typed_tensor::autograd::checkpoint(drop, &[&x]));
        let y = y.unwrap();
        let sum = y.try_sum(&[], false).unwrap();
        Generator::new().run(|| sum.try_backward()).unwrap();
        let grad = x.grad_tensor().unwrap().to_device(&Cpu).unwrap().to_vec();
        assert_eq!(grad, y.detach().to_device(&Cpu).unwrap().to_vec());
    });
}

#[test]
fn loader_generator_fixes_the_epochs() {
    use typed_tensor::Generator;
    let x = Tensor::<f64>::arange(0.0, 12.0, 1.0).unwrap();
    let epochs = |seed| {
        let mut g = Generator::new();
        g.manual_seed(seed);
        let loader = DataLoader::new(x.clone(), 5)
            .unwrap()
            .shuffle(true)
            .generator(g);
        let twice: Vec<Vec<f64>> = (0..2)
            .flat_map(|_| {
                loader
                    .iter()
                    .unwrap()
                    .map(|b| b.unwrap().to_vec())
                    .collect::<Vec<_>>()
            })
            .collect();
        twice
    };
    let a = epochs(1);
    typed_tensor::manual_seed(99);
    assert_eq!(epochs(1), a);
    assert_ne!(a[..3], a[3..]); // the second epoch has its own order
    assert_ne!(epochs(2), a);
    let mut all: Vec<f64> = a[..3].concat();
    all.sort_by(f64::total_cmp);
    assert_eq!(all, x.to_vec());
}
