//! Random state: the global generator behind every random op (`manual_seed`, PyTorch's
//! default seed), its snapshots, and [`Generator`]s of their own that a scope puts in its
//! place on the calling thread (PyTorch `torch.Generator`).

use rand::{Rng, SeedableRng, rngs::StdRng};
use std::cell::RefCell;
use std::sync::Mutex;

/// PyTorch's default seed, so that unseeded programs are reproducible too.
const DEFAULT_SEED: u64 = 67280421310721;

static GLOBAL_RNG: Mutex<Option<StdRng>> = Mutex::new(None);
/// The seed last given to the global generator, for [`initial_seed`].
static LAST_SEED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(DEFAULT_SEED);

/// Seeds the global generator behind [`Tensor::rand`](crate::Tensor::rand) and
/// [`Tensor::randn`](crate::Tensor::randn) (PyTorch's
/// `manual_seed`). The same seed gives the same values on every run and machine.
pub fn manual_seed(seed: u64) {
    LAST_SEED.store(seed, std::sync::atomic::Ordering::Relaxed);
    *GLOBAL_RNG.lock().unwrap_or_else(|p| p.into_inner()) = Some(StdRng::seed_from_u64(seed));
}

/// Seeds the global generator from the operating system's entropy and returns the seed
/// (PyTorch `seed`), for runs that should differ yet be replayable from the printed seed.
pub fn seed() -> u64 {
    let s = rand::rng().random();
    manual_seed(s);
    s
}

/// The seed the global generator last started from (PyTorch `initial_seed`): the argument
/// of the last [`manual_seed`] or [`seed`], or the default seed PyTorch also uses.
pub fn initial_seed() -> u64 {
    LAST_SEED.load(std::sync::atomic::Ordering::Relaxed)
}

/// A snapshot of a generator (PyTorch's `get_rng_state`, an opaque value here rather than a
/// byte tensor): [`set_rng_state`] (or [`Generator::set_state`]) makes the next draws repeat
/// those that followed it.
///
/// ```
/// use typed_tensor::prelude::*;
/// let state = typed_tensor::get_rng_state();
/// let a = Tensor::<f32>::rand([3])?;
/// typed_tensor::set_rng_state(&state);
/// assert_eq!(Tensor::<f32>::rand([3])?.to_vec(), a.to_vec());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct RngState(StdRng);

impl std::fmt::Debug for RngState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RngState { .. }")
    }
}

/// The global generator's state (PyTorch `get_rng_state`; inside [`Generator::run`], the
/// scope's generator's); see [`RngState`].
pub fn get_rng_state() -> RngState {
    RngState(rng_state())
}

/// Puts the global generator back in `state` (PyTorch `set_rng_state`; inside
/// [`Generator::run`], the scope's generator); see [`RngState`].
pub fn set_rng_state(state: &RngState) {
    restore_rng_state(state.0.clone());
}

/// A fresh 64-bit key from the global generator, for generators on other devices (the CUDA
/// Philox kernel), so that [`manual_seed`] makes them reproducible too.
pub(crate) fn next_key() -> u64 {
    with_global_rng(|r| r.random())
}

/// The current generator's state, to replay its draws (`checkpoint`).
pub(crate) fn rng_state() -> StdRng {
    with_global_rng(|r| r.clone())
}

/// Puts the current generator in `state`.
pub(crate) fn restore_rng_state(state: StdRng) {
    with_global_rng(|r| *r = state);
}

thread_local! {
    /// The generators of the [`Generator::run`] scopes open on this thread, innermost last.
    static SCOPED: RefCell<Vec<Option<StdRng>>> = const { RefCell::new(Vec::new()) };
}

/// `f` on the current generator: the innermost [`Generator::run`] scope's on this thread,
/// else the global one. Every random draw of the crate goes through here.
pub(crate) fn with_global_rng<R>(f: impl FnOnce(&mut StdRng) -> R) -> R {
    // Taken out of its slot while `f` runs, so the thread-local is not borrowed meanwhile.
    let scoped = SCOPED.with(|s| {
        let mut s = s.borrow_mut();
        let depth = s.len().checked_sub(1)?;
        Some((s[depth].take()?, depth))
    });
    if let Some((mut rng, depth)) = scoped {
        let out = f(&mut rng);
        SCOPED.with(|s| s.borrow_mut()[depth] = Some(rng));
        return out;
    }
    let mut g = GLOBAL_RNG.lock().unwrap_or_else(|p| p.into_inner());
    f(g.get_or_insert_with(|| StdRng::seed_from_u64(DEFAULT_SEED)))
}

/// A random number generator of its own (PyTorch `torch.Generator`): seeded on its own, and
/// put in the global generator's place for the random ops inside [`Generator::run`], where
/// PyTorch passes `generator=g` to each op. Every random op of the crate (`rand`, `randn`,
/// `randint`, `randperm`, `bernoulli`, `multinomial`, dropout, the `nn::init` fills, the
/// distributions' samples, `data::random_split`, a `DataLoader`'s shuffle, the CUDA kernels'
/// keys) draws from it there, so a data split or an initialisation is reproducible whatever
/// else the program draws.
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::Generator;
/// let mut g = Generator::new();
/// g.manual_seed(42);
/// let a = g.run(|| Tensor::<f32>::randn([3]))?;
/// let _other = Tensor::<f32>::rand([5])?; // the global generator: `g` is not advanced
/// let b = g.run(|| Tensor::<f32>::randn([3]))?;
/// g.manual_seed(42);
/// let again = g.run(|| Tensor::<f32>::randn([6]))?;
/// assert_eq!(again.to_vec(), [a.to_vec(), b.to_vec()].concat());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone)]
pub struct Generator {
    rng: StdRng,
    seed: u64,
}

impl Default for Generator {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator")
            .field("initial_seed", &self.seed)
            .finish_non_exhaustive()
    }
}

impl Generator {
    /// A generator at PyTorch's default seed (as `torch.Generator()`).
    pub fn new() -> Self {
        Generator {
            rng: StdRng::seed_from_u64(DEFAULT_SEED),
            seed: DEFAULT_SEED,
        }
    }

    /// Restarts the generator from `seed` (PyTorch `Generator.manual_seed`); returns it, for
    /// `Generator::new().manual_seed(0).run(..)`.
    pub fn manual_seed(&mut self, seed: u64) -> &mut Self {
        *self = Generator {
            rng: StdRng::seed_from_u64(seed),
            seed,
        };
        self
    }

    /// Restarts the generator from a seed drawn from the operating system's entropy and
    /// returns that seed (PyTorch `Generator.seed`).
    pub fn seed(&mut self) -> u64 {
        let s = rand::rng().random();
        self.manual_seed(s);
        s
    }

    /// The seed the generator last started from (PyTorch `Generator.initial_seed`).
    pub fn initial_seed(&self) -> u64 {
        self.seed
    }

    /// A snapshot of the generator (PyTorch `Generator.get_state`).
    pub fn get_state(&self) -> RngState {
        RngState(self.rng.clone())
    }

    /// Puts the generator back in `state` (PyTorch `Generator.set_state`); a state taken from
    /// the global generator or another generator works too.
    pub fn set_state(&mut self, state: &RngState) {
        self.rng = state.0.clone();
    }

    /// Runs `f` with this generator in the global generator's place on the calling thread:
    /// every random op `f` calls on this thread draws from it (and [`get_rng_state`] /
    /// [`set_rng_state`] see it), and it keeps its advanced state for the next call. Other
    /// threads, and rayon's workers, keep drawing from the global generator (the crate draws
    /// on the calling thread, then fills in parallel); [`manual_seed`] inside still seeds the
    /// global one. Scopes nest: the innermost generator draws. If `f` panics, the generator
    /// keeps the state of its last completed draw.
    pub fn run<R>(&mut self, f: impl FnOnce() -> R) -> R {
        /// Puts the scope's generator back into `self` however `f` ends.
        struct Scope<'a> {
            owner: &'a mut Generator,
            depth: usize,
        }
        impl Drop for Scope<'_> {
            fn drop(&mut self) {
                let back = SCOPED.with(|s| {
                    let mut s = s.borrow_mut();
                    let back = s.get_mut(self.depth).and_then(Option::take);
                    s.truncate(self.depth);
                    back
                });
                if let Some(rng) = back {
                    self.owner.rng = rng;
                }
            }
        }
        let depth = SCOPED.with(|s| {
            let mut s = s.borrow_mut();
            s.push(Some(self.rng.clone()));
            s.len() - 1
        });
        let _scope = Scope { owner: self, depth };
        f()
    }
}
