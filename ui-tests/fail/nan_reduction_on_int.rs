// Integers have no NaN, so the NaN-aware reductions do not exist for them.
use typed_tensor::prelude::*;

fn main() {
    let x = Tensor::<i64>::from_vec(vec![1, 2, 3], [3]).unwrap();
    let _ = x.nanmean(&[], false);
    let _ = reduce_nansum(&x, &[0], false);
}
