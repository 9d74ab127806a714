//! Mini-batches of in-memory data (PyTorch's `TensorDataset`, `DataLoader` and
//! `random_split`): a dataset is a tensor or a tuple of tensors whose first dimension indexes
//! the samples (inputs and their targets, of any dtypes, on one device), and a batch is the
//! same tuple of the rows at some indices, gathered on the device by `index_select`.
//!
//! ```
//! use typed_tensor::data::{DataLoader, random_split};
//! use typed_tensor::prelude::*;
//!
//! let x = Tensor::<f32>::from_vec((0..20).map(|v| v as f32).collect(), [10, 2])?;
//! let y = Tensor::<i64>::from_vec((0..10).collect(), [10])?;
//! typed_tensor::manual_seed(0);
//! let [train, test] = random_split(&(x, y), &[8, 2])?.try_into().unwrap();
//! let loader = DataLoader::new(train, 3)?.shuffle(true).drop_last(true);
//! assert_eq!(loader.len(), 2); // 8 rows in batches of 3, the last 2 dropped
//! for batch in loader.iter()? {
//!     let (xb, yb) = batch?;
//!     assert_eq!((xb.dims(), yb.dims()), (&[3, 2][..], &[3][..]));
//! }
//! assert_eq!(test.1.numel(), 2);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::tensor::{Generator, Tensor};
use std::sync::{Arc, Mutex};

/// Data whose first dimension indexes samples: a tensor, or a tuple of up to four tensors on
/// one device with the same number of rows.
pub trait Rows: Clone {
    /// The device the rows live on (where the batch indices are made).
    type Device: Backend;
    /// The number of samples, checked to agree across a tuple's tensors.
    ///
    /// # Errors
    /// `InvalidArgument` for a 0-d tensor or tensors with different first dimensions.
    fn rows(&self) -> Result<usize>;
    /// The samples at `index` (Int64, on the data's device), in its order.
    ///
    /// # Errors
    /// As [`Tensor::try_index_select`] along axis 0.
    fn select_rows(&self, index: &Tensor<i64, Self::Device>) -> Result<Self>;
    /// The device handle.
    fn device_handle(&self) -> &Self::Device;
}

impl<T: Element, D: Backend> Rows for Tensor<T, D> {
    type Device = D;
    fn rows(&self) -> Result<usize> {
        self.dims()
            .first()
            .copied()
            .ok_or_else(|| Error::InvalidArgument {
                op: "DataLoader",
                msg: "a 0-d tensor has no samples; give each sample a row (reshape to [1] or more)"
                    .into(),
            })
    }
    fn select_rows(&self, index: &Tensor<i64, D>) -> Result<Self> {
        self.try_index_select(0, index)
    }
    fn device_handle(&self) -> &D {
        Tensor::device_handle(self)
    }
}

macro_rules! tuple_rows {
    ($first:ident $($rest:ident)*) => {
        impl<$first: Rows, $($rest: Rows<Device = $first::Device>),*> Rows for ($first, $($rest),*) {
            type Device = $first::Device;
            #[allow(non_snake_case)]
            fn rows(&self) -> Result<usize> {
                let ($first, $($rest),*) = self;
                let n = $first.rows()?;
                $(
                    let m = $rest.rows()?;
                    if m != n {
                        return Err(Error::InvalidArgument {
                            op: "DataLoader",
                            msg: format!("the tensors of a dataset need the same number of rows (first dimension), got {n} and {m}"),
                        });
                    }
                    let (a, b) = ($first.device_index(), $rest.device_index());
                    if a != b {
                        return Err(Error::Device {
                            op: "DataLoader",
                            msg: format!("the tensors of a dataset are on {a} and {b}; move them to one device first"),
                        });
                    }
                )*
                Ok(n)
            }
            #[allow(non_snake_case)]
            fn select_rows(&self, index: &Tensor<i64, Self::Device>) -> Result<Self> {
                let ($first, $($rest),*) = self;
                Ok(($first.select_rows(index)?, $($rest.select_rows(index)?),*))
            }
            fn device_handle(&self) -> &Self::Device {
                self.0.device_handle()
            }
        }
    };
}
tuple_rows!(A B);
tuple_rows!(A B C);
tuple_rows!(A B C E);

/// The device index of any `Rows` (for the tuples' same-device check).
trait DeviceIndexOf {
    fn device_index(&self) -> crate::device::DeviceIndex;
}

impl<R: Rows> DeviceIndexOf for R {
    fn device_index(&self) -> crate::device::DeviceIndex {
        crate::device::RawDevice::index(self.device_handle())
    }
}

/// Mini-batches over a dataset (PyTorch `DataLoader(TensorDataset(...), batch_size,
/// shuffle, drop_last)`): each [`DataLoader::iter`] is one epoch, in order or, with
/// [`DataLoader::shuffle`], in a fresh permutation from the global generator (so
/// [`crate::manual_seed`] makes epochs reproducible, as PyTorch's default sampler) or from
/// the loader's own [`DataLoader::generator`].
#[derive(Clone)]
pub struct DataLoader<S: Rows> {
    data: S,
    rows: usize,
    batch_size: usize,
    shuffle: bool,
    drop_last: bool,
    /// Shared by the loader's clones.
    generator: Option<Arc<Mutex<Generator>>>,
}

impl<S: Rows> DataLoader<S> {
    /// Batches of `batch_size` samples, in order, the last one shorter when the samples do
    /// not divide evenly (PyTorch's defaults).
    ///
    /// # Errors
    /// `InvalidArgument` for a `batch_size` of 0, or data whose tensors do not agree in their
    /// number of rows or device.
    pub fn new(data: S, batch_size: usize) -> Result<Self> {
        if batch_size == 0 {
            return Err(Error::InvalidArgument {
                op: "DataLoader",
                msg: "batch_size must be at least 1".into(),
            });
        }
        let rows = data.rows()?;
        Ok(DataLoader {
            data,
            rows,
            batch_size,
            shuffle: false,
            drop_last: false,
            generator: None,
        })
    }

    /// Reorders the samples at random before each epoch.
    pub fn shuffle(mut self, shuffle: bool) -> Self {
        self.shuffle = shuffle;
        self
    }

    /// Draws the shuffled orders from `generator` rather than the global generator (PyTorch
    /// `DataLoader(generator=g)`): the epochs' orders then depend on its seed alone. Clones of
    /// the loader share it.
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// use typed_tensor::{Generator, data::DataLoader};
    /// let x = Tensor::<f32>::arange(0.0, 6.0, 1.0)?;
    /// let epoch = |seed| -> typed_tensor::Result<Vec<Vec<f32>>> {
    ///     let mut g = Generator::new();
    ///     g.manual_seed(seed);
    ///     let loader = DataLoader::new(x.clone(), 4)?.shuffle(true).generator(g);
    ///     loader.iter()?.map(|b| Ok(b?.to_vec())).collect()
    /// };
    /// let a = epoch(3)?;
    /// let _ = Tensor::<f32>::rand([10])?; // global draws do not change the order
    /// assert_eq!(epoch(3)?, a);
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    pub fn generator(mut self, generator: Generator) -> Self {
        self.generator = Some(Arc::new(Mutex::new(generator)));
        self
    }

    /// Leaves out the last batch when it would be shorter than `batch_size`.
    pub fn drop_last(mut self, drop_last: bool) -> Self {
        self.drop_last = drop_last;
        self
    }

    /// The number of samples.
    pub fn num_samples(&self) -> usize {
        self.rows
    }

    /// The number of batches of one epoch (PyTorch `len(loader)`).
    pub fn len(&self) -> usize {
        match self.drop_last {
            true => self.rows / self.batch_size,
            false => self.rows.div_ceil(self.batch_size),
        }
    }

    /// True when an epoch has no batch.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The batches of one epoch; the order (a permutation when shuffling) is drawn now, each
    /// batch is gathered when the iterator reaches it.
    ///
    /// # Errors
    /// Allocation or device failure making the order.
    pub fn iter(&self) -> Result<impl Iterator<Item = Result<S>> + '_> {
        let device = self.data.device_handle();
        let shuffled = || Tensor::<i64, S::Device>::randperm_on(self.rows, device);
        let order = match (self.shuffle, &self.generator) {
            (true, Some(g)) => g.lock().unwrap_or_else(|p| p.into_inner()).run(shuffled)?,
            (true, None) => shuffled()?,
            (false, _) => Tensor::<i64, S::Device>::arange_on(0, self.rows as i64, 1, device)?,
        };
        let (n, b) = (self.len(), self.batch_size);
        Ok((0..n).map(move |k| {
            let start = k * b;
            let index = order.narrow(0, start, b.min(self.rows - start))?;
            self.data.select_rows(&index)
        }))
    }
}

/// The samples split at random into parts of the given `lengths` (PyTorch `random_split`),
/// the permutation from the global generator, or from a [`Generator`] of its own inside
/// [`Generator::run`] (PyTorch's `generator=`):
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::{Generator, data::random_split};
/// let x = Tensor::<f32>::arange(0.0, 10.0, 1.0)?;
/// let mut g = Generator::new();
/// let parts = g.manual_seed(42).run(|| random_split(&x, &[8, 2]))?;
/// let again = g.manual_seed(42).run(|| random_split(&x, &[8, 2]))?;
/// assert_eq!(parts[1].to_vec(), again[1].to_vec());
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` when the lengths do not add up to the number of samples (or overflow);
/// as [`Rows::rows`].
pub fn random_split<S: Rows>(data: &S, lengths: &[usize]) -> Result<Vec<S>> {
    let n = data.rows()?;
    let total = lengths
        .iter()
        .try_fold(0usize, |a, &l| a.checked_add(l))
        .filter(|&t| t == n);
    if total.is_none() {
        return Err(Error::InvalidArgument {
            op: "random_split",
            msg: format!("the lengths {lengths:?} must add up to the {n} samples"),
        });
    }
    let order = Tensor::<i64, S::Device>::randperm_on(n, data.device_handle())?;
    let mut start = 0;
    lengths
        .iter()
        .map(|&l| {
            let part = data.select_rows(&order.narrow(0, start, l)?);
            start += l;
            part
        })
        .collect()
}
