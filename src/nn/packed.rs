//! Packed sequences (PyTorch's `nn.utils.rnn`): a batch of variable-length sequences stored
//! time step by time step without padding, as `PackedSequence` holds them.

use super::utils::pad_sequence;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A batch of sequences packed time step by time step (PyTorch `PackedSequence`): `data`
/// `(Σ lengths, *)` holds step 0 of every sequence, then step 1 of those at least 2 long, and
/// so on, the sequences ordered longest first; `batch_sizes[t]` is how many sequences are
/// longer than `t`. `sorted_indices[i]` is the original batch position of the `i`-th longest
/// (`None` when the batch came sorted), `unsorted_indices` its inverse.
#[derive(Clone, Debug)]
pub struct PackedSequence<T: FloatElement, D: Backend> {
    /// The packed steps.
    pub data: Tensor<T, D>,
    /// The number of sequences at each time step (non-increasing).
    pub batch_sizes: Vec<usize>,
    /// The batch order by decreasing length, when the input was not sorted.
    pub sorted_indices: Option<Vec<usize>>,
    /// The inverse permutation of `sorted_indices`.
    pub unsorted_indices: Option<Vec<usize>>,
}

fn bad(op: &'static str, msg: String) -> Error {
    Error::InvalidArgument { op, msg }
}

/// Packs a padded batch (PyTorch `pack_padded_sequence`): `input` `(T, B, *)` (`(B, T, *)`
/// with `batch_first`), `lengths` one per sequence, each in `1..=T`. With `enforce_sorted`
/// the lengths must not increase; otherwise the batch is sorted (stably, as PyTorch's
/// `sort(descending=True)`) and the permutation kept. Differentiable in `input`.
///
/// ```
/// use typed_tensor::nn::{pack_padded_sequence, pad_packed_sequence};
/// use typed_tensor::prelude::*;
/// // Two sequences of lengths 1 and 3, batch first, padded with 0.
/// let x = tensor![[1.0f32, 0.0, 0.0], [2.0, 3.0, 4.0]];
/// let p = pack_padded_sequence(&x, &[1, 3], true, false)?;
/// assert_eq!((p.data.to_vec(), p.batch_sizes.clone()), (vec![2.0, 1.0, 3.0, 4.0], vec![2, 1, 1]));
/// let (back, lengths) = pad_packed_sequence(&p, true, 0.0, None)?;
/// assert_eq!((back.to_vec(), lengths), (x.to_vec(), vec![1, 3]));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` for an input of fewer than two dimensions, a length count other than
/// the batch size, a length of 0 or above `T`, increasing lengths with `enforce_sorted`.
pub fn pack_padded_sequence<T: FloatElement, D: Backend>(
    input: &Tensor<T, D>,
    lengths: &[usize],
    batch_first: bool,
    enforce_sorted: bool,
) -> Result<PackedSequence<T, D>> {
    const OP: &str = "pack_padded_sequence";
    if input.ndim() < 2 {
        return Err(bad(
            OP,
            format!("needs a (T, B, *) input, got shape {}", input.shape()),
        ));
    }
    let x = if batch_first {
        input.transpose(0, 1)?
    } else {
        input.clone()
    };
    let (steps, batch) = (x.dims()[0], x.dims()[1]);
    if batch == 0 {
        return Err(bad(OP, "needs at least one sequence".into()));
    }
    if lengths.len() != batch {
        return Err(bad(
            OP,
            format!("{} lengths for a batch of {batch}", lengths.len()),
        ));
    }
    if let Some(&l) = lengths.iter().find(|&&l| l == 0 || l > steps) {
        return Err(bad(
            OP,
            format!("every length must be in 1..={steps}, got {l}"),
        ));
    }
    let (order, sorted, unsorted) = if enforce_sorted {
        if lengths.windows(2).any(|w| w[1] > w[0]) {
            return Err(bad(
                OP,
                format!(
                    "the lengths {lengths:?} must not increase with enforce_sorted; pass enforce_sorted = false"
                ),
            ));
        }
        ((0..batch).collect::<Vec<_>>(), None, None)
    } else {
        let mut order: Vec<usize> = (0..batch).collect();
        order.sort_by(|&a, &b| lengths[b].cmp(&lengths[a]));
        let mut inverse = vec![0; batch];
        for (i, &o) in order.iter().enumerate() {
            inverse[o] = i;
        }
        (order.clone(), Some(order), Some(inverse))
    };
    // An empty input may name 2^60 steps: the vectors are allocated fallibly, their sizes
    // checked (every row index is below `steps·batch`).
    let longest = lengths[order[0]];
    let sizes = (0..longest).map(|t| lengths.iter().filter(|&&l| l > t).count());
    let batch_sizes = crate::alloc::collect(OP, longest, sizes)?;
    let total = (lengths.iter()).try_fold(0usize, |a, &l| a.checked_add(l));
    let total = total.ok_or_else(|| bad(OP, "the lengths' sum overflows".into()))?;
    let cells = (steps.checked_mul(batch))
        .ok_or_else(|| bad(OP, format!("{steps} steps of {batch} sequences overflow")))?;
    // Row t·B + b of the (T·B, *) input for every packed step.
    let rows = (batch_sizes.iter().enumerate())
        .flat_map(|(t, &n)| order[..n].iter().map(move |&b| (t * batch + b) as i64));
    let rows = crate::alloc::collect(OP, total, rows)?;
    let idx = Tensor::<i64, D>::from_vec_on(rows, [total], input.device_handle())?;
    let mut flat = vec![cells];
    flat.extend(&x.dims()[2..]);
    let data = x.try_reshape(flat)?.try_index_select(0, &idx)?;
    Ok(PackedSequence {
        data,
        batch_sizes,
        sorted_indices: sorted,
        unsorted_indices: unsorted,
    })
}

/// Unpacks to a padded batch (PyTorch `pad_packed_sequence`): `(T, B, *)` (`(B, T, *)` with
/// `batch_first`), `T` the longest length or `total_length`, `padding_value` after each
/// sequence, the original batch order restored; and the lengths in that order.
/// Differentiable in `data`.
///
/// # Errors
/// `InvalidArgument` for `total_length` below the longest sequence, or a `PackedSequence`
/// whose parts disagree (batch sizes that increase or do not sum to `data`'s rows, indices
/// that are not a permutation of the batch).
pub fn pad_packed_sequence<T: FloatElement, D: Backend>(
    sequence: &PackedSequence<T, D>,
    batch_first: bool,
    padding_value: f64,
    total_length: Option<usize>,
) -> Result<(Tensor<T, D>, Vec<usize>)> {
    const OP: &str = "pad_packed_sequence";
    let (mut padded, _) = padded_sorted(OP, sequence, padding_value, total_length)?;
    let (bs, data) = (&sequence.batch_sizes, &sequence.data);
    let batch = bs.first().copied().unwrap_or(0);
    let sorted_lengths: Vec<usize> = (0..batch)
        .map(|b| bs.iter().filter(|&&n| n > b).count())
        .collect();
    let lengths = match &sequence.unsorted_indices {
        Some(u) => {
            let back: Vec<i64> = u.iter().map(|&i| i as i64).collect();
            let back = Tensor::<i64, D>::from_vec_on(back, [batch], data.device_handle())?;
            padded = padded.try_index_select(1, &back)?;
            u.iter().map(|&i| sorted_lengths[i]).collect()
        }
        None => sorted_lengths,
    };
    let padded = if batch_first {
        padded.transpose(0, 1)?.try_contiguous()?
    } else {
        padded
    };
    Ok((padded, lengths))
}

/// Packs a list of sequences `(L_i, *)` (PyTorch `pack_sequence`): [`pad_sequence`] then
/// [`pack_padded_sequence`].
///
/// # Errors
/// As the two.
pub fn pack_sequence<T: FloatElement, D: Backend>(
    sequences: &[&Tensor<T, D>],
    enforce_sorted: bool,
) -> Result<PackedSequence<T, D>> {
    let padded =
        pad_sequence(sequences, false, 0.0, false).map_err(|e| e.renamed("pack_sequence"))?;
    let lengths: Vec<usize> = sequences.iter().map(|s| s.dims()[0]).collect();
    pack_padded_sequence(&padded, &lengths, false, enforce_sorted)
        .map_err(|e| e.renamed("pack_sequence"))
}

/// The sequences of a packed batch, in the original order (PyTorch `unpack_sequence`).
///
/// # Errors
/// As [`pad_packed_sequence`].
pub fn unpack_sequence<T: FloatElement, D: Backend>(
    sequence: &PackedSequence<T, D>,
) -> Result<Vec<Tensor<T, D>>> {
    let (padded, lengths) = pad_packed_sequence(sequence, true, 0.0, None)?;
    (lengths.iter().enumerate())
        .map(|(b, &l)| padded.select(0, b as i64)?.narrow(0, 0, l))
        .collect()
}

/// `sequence` padded with `padding_value` to `(T, B, *)` in its sorted batch order (`T` the
/// longest length or `total_length`), and the packed rows' positions in its `(T·B, *)` view;
/// the parts checked to agree.
#[allow(clippy::type_complexity)]
fn padded_sorted<T: FloatElement, D: Backend>(
    op: &'static str,
    sequence: &PackedSequence<T, D>,
    padding_value: f64,
    total_length: Option<usize>,
) -> Result<(Tensor<T, D>, Tensor<i64, D>)> {
    let bs = &sequence.batch_sizes;
    let data = &sequence.data;
    let batch = bs.first().copied().unwrap_or(0);
    let rows = bs
        .iter()
        .try_fold(0usize, |a, &b| a.checked_add(b))
        .unwrap_or(usize::MAX);
    if data.ndim() == 0
        || data.dims()[0] != rows
        || bs.windows(2).any(|w| w[1] > w[0])
        || bs.contains(&0)
    {
        return Err(bad(
            op,
            format!(
                "batch sizes {bs:?} do not describe data of shape {}",
                data.shape()
            ),
        ));
    }
    let is_perm = |p: &Option<Vec<usize>>| {
        p.as_ref().is_none_or(|p| {
            let mut seen = vec![false; batch];
            p.len() == batch
                && p.iter()
                    .all(|&i| i < batch && !std::mem::replace(&mut seen[i], true))
        })
    };
    if !is_perm(&sequence.sorted_indices) || !is_perm(&sequence.unsorted_indices) {
        return Err(bad(
            op,
            format!("the indices are not a permutation of the batch of {batch}"),
        ));
    }
    let steps = match total_length {
        Some(t) if t < bs.len() => {
            return Err(bad(
                op,
                format!(
                    "total_length {t} is below the longest sequence's length {}",
                    bs.len()
                ),
            ));
        }
        Some(t) => t,
        None => bs.len(),
    };
    let cells = (steps.checked_mul(batch))
        .ok_or_else(|| bad(op, format!("{steps} steps of {batch} sequences overflow")))?;
    // Sorted position b at step t sits at row t·B + b of the padded (T·B, *) batch.
    let at =
        (bs.iter().enumerate()).flat_map(|(t, &n)| (0..n).map(move |b| (t * batch + b) as i64));
    let at = crate::alloc::collect(op, rows, at)?;
    let idx = Tensor::<i64, D>::from_vec_on(at, [rows], data.device_handle())?;
    let mut flat = vec![cells];
    flat.extend(&data.dims()[1..]);
    let padded = Tensor::full_on(flat, T::from_f64(padding_value), data.device_handle())?
        .try_index_copy(0, &idx, data)?;
    let mut dims = vec![steps, batch];
    dims.extend(&data.dims()[1..]);
    let padded = padded.try_reshape(dims)?;
    Ok((padded, idx))
}

/// The result of [`rnn_packed`]: the packed outputs of the last layer (the input's batch
/// sizes and permutation) and the final states in the original batch order.
#[derive(Clone, Debug)]
pub struct PackedRnnOutput<T: FloatElement, D: Backend> {
    /// `(Σ lengths, dirs·H)`, packed as the input.
    pub output: PackedSequence<T, D>,
    /// `(layers·dirs, B, H)`: each sequence's state after its own last step (for the
    /// reverse direction, after its first).
    pub h_n: Tensor<T, D>,
    /// The LSTM's final cell states, shaped as `h_n`; `None` for the other modes.
    pub c_n: Option<Tensor<T, D>>,
}

/// [`super::rnn`] over a packed batch (PyTorch's `nn.RNN`/`nn.LSTM`/`nn.GRU` given a
/// `PackedSequence`): each sequence runs over its own length only, the reverse direction
/// from its own last step; `h0`/`c0` `(layers·dirs, B, H)` in the original batch order, as
/// PyTorch's. `opts.batch_first` is ignored (a packed batch has no batch axis). Differentiable.
///
/// # Errors
/// As [`super::rnn`] and [`pad_packed_sequence`]; `InvalidArgument` for packed data that is
/// not `(rows, In)`.
pub fn rnn_packed<T: FloatElement, D: Backend>(
    mode: super::RnnMode,
    input: &PackedSequence<T, D>,
    h0: Option<&Tensor<T, D>>,
    c0: Option<&Tensor<T, D>>,
    weights: &[super::CellWeights<'_, T, D>],
    opts: super::RnnOptions,
) -> Result<PackedRnnOutput<T, D>> {
    const OP: &str = "rnn";
    if input.data.ndim() != 2 {
        return Err(bad(
            OP,
            format!(
                "needs packed data of shape (rows, In), got {}",
                input.data.shape()
            ),
        ));
    }
    let (padded, rows) = padded_sorted(OP, input, 0.0, None)?;
    let dev = input.data.device_handle();
    let permute = |t: &Tensor<T, D>, order: &[usize]| -> Result<Tensor<T, D>> {
        let idx: Vec<i64> = order.iter().map(|&i| i as i64).collect();
        let n = idx.len();
        if t.ndim() != 3 || t.dims()[1] != n {
            return Err(bad(
                OP,
                format!(
                    "an initial state must be (layers·dirs, {n}, H), got {}",
                    t.shape()
                ),
            ));
        }
        t.try_index_select(1, &Tensor::from_vec_on(idx, [n], dev)?)
    };
    let sorted = |s: Option<&Tensor<T, D>>| -> Result<Option<Tensor<T, D>>> {
        match (s, &input.sorted_indices) {
            (Some(s), Some(order)) => Ok(Some(permute(s, order)?)),
            (s, _) => Ok(s.cloned()),
        }
    };
    let (h0, c0) = (sorted(h0)?, sorted(c0)?);
    let opts = super::RnnOptions {
        batch_first: false,
        ..opts
    };
    let out = super::sequence::run(
        mode,
        &padded,
        h0.as_ref(),
        c0.as_ref(),
        weights,
        opts,
        Some(&input.batch_sizes),
    )?;
    let (steps, batch, width) = (
        out.output.dims()[0],
        out.output.dims()[1],
        out.output.dims()[2],
    );
    let data = out
        .output
        .try_reshape([steps * batch, width])?
        .try_index_select(0, &rows)?;
    let original = |s: Tensor<T, D>| -> Result<Tensor<T, D>> {
        match &input.unsorted_indices {
            Some(order) => permute(&s, order),
            None => Ok(s),
        }
    };
    Ok(PackedRnnOutput {
        output: PackedSequence {
            data,
            ..input.clone()
        },
        h_n: original(out.h_n)?,
        c_n: out.c_n.map(original).transpose()?,
    })
}
