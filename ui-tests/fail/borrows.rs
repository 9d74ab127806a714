// A borrowed data slice keeps its tensor alive and read-only.
use typed_tensor::prelude::*;

fn main() {
    let t = Tensor::<f32>::ones([3]).unwrap();
    let view = t.data().unwrap();
    drop(t);
    println!("{}", view[0]);

    let u = Tensor::<f32>::ones([3]).unwrap();
    let read = u.data().unwrap();
    read[0] = 2.0;
}
