//! The kernel table: which kernels each module in `kernels/` instantiates, and their names.
//!
//! A kernel's symbol is `<root>_<suffix>`: the op's root (its `NAME`, e.g. `sin`) and the
//! element type's [`Element::KERNEL_SUFFIX`], spelled by one function, `kernel_name`, for both
//! the table (`instance`, which also writes the instantiation line appended to the module
//! source) and launches (`symbol`). The CUDA macros paste the same two parts (`root##_##sfx`),
//! and the NVRTC test checks that every symbol of the table is in the compiled PTX. The dtype sets below match the typed API's bounds (float-valued unary ops and
//! comparisons on every dtype, arithmetic on the numeric ones), so every (op, dtype) pair that
//! type-checks has a kernel; a test checks that.

use crate::backend::cuda::device::group_of;
use crate::dtype::{Dtype, Element};
use crate::ops::{binary, compare, unary};
use half::{bf16, f16};

/// One `.cu` family, compiled by NVRTC as one module per device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Module {
    /// `kernels/unary.cu`: float-valued and type-keeping unary ops.
    Unary,
    /// `kernels/binary.cu`: arithmetic with broadcasting, and comparisons.
    Binary,
    /// `kernels/cast.cu`: casts between every pair of dtypes, and strided copies.
    Cast,
    /// `kernels/reduce.cu`: sum, product, min, max, arg-reductions, var, std, any, all, and the
    /// running cumsum/cumprod.
    Reduce,
    /// `kernels/matmul.cu`: integer matmul (floats use cuBLAS).
    Matmul,
    /// `kernels/index.cu`: where, copies into views, index_select, gather, arange, rand.
    Index,
    /// `kernels/rows.cu`: softmax, logsumexp, exp(x - shift)·scale and layer norm over
    /// contiguous rows, one block a row (f32 and f64).
    Rows,
}

/// The row kernels of `kernels/rows.cu` (macro, root), for f32 and f64.
pub const ROW_KERNELS: [(&str, &str); 4] = [
    ("SOFTMAX_ROWS", "softmax_rows"),
    ("LOGSUMEXP_ROWS", "logsumexp_rows"),
    ("EXP_SUB_ROWS", "exp_sub_rows"),
    ("LAYER_NORM_ROWS", "layer_norm_rows"),
];

/// The NaN-skipping reductions `kernels/reduce.cu` defines for float dtypes, by kernel root.
pub const NAN_REDUCTIONS: [&str; 7] = [
    "nansum",
    "nanproduct",
    "nanmax",
    "nanmin",
    "nanargmax",
    "nanargmin",
    "nanmean",
];

/// The running reductions (`SCAN` in `kernels/reduce.cu`) for every dtype, by kernel root.
pub const SCANS: [&str; 2] = ["cumsum", "cumprod"];

/// The reductions `kernels/reduce.cu` defines for every dtype, by kernel root.
pub const REDUCTIONS: [&str; 10] = [
    "sum", "product", "max", "min", "argmax", "argmin", "var", "std", "any", "all",
];

const PRELUDE: &str = include_str!("../../../../kernels/prelude.cuh");

impl Module {
    /// Every module.
    pub const ALL: [Module; 7] = [
        Module::Unary,
        Module::Binary,
        Module::Cast,
        Module::Reduce,
        Module::Matmul,
        Module::Index,
        Module::Rows,
    ];

    /// The module as the launcher takes it: its name and its source function.
    pub fn kernels(self) -> crate::backend::cuda::device::KernelModule {
        crate::backend::cuda::device::KernelModule {
            name: self.name(),
            source: match self {
                Module::Unary => |k| Module::Unary.source_for(k),
                Module::Binary => |k| Module::Binary.source_for(k),
                Module::Cast => |k| Module::Cast.source_for(k),
                Module::Reduce => |k| Module::Reduce.source_for(k),
                Module::Matmul => |k| Module::Matmul.source_for(k),
                Module::Index => |k| Module::Index.source_for(k),
                Module::Rows => |k| Module::Rows.source_for(k),
            },
        }
    }

    /// The module's name, for messages and NVRTC's program name.
    pub fn name(self) -> &'static str {
        match self {
            Module::Unary => "unary.cu",
            Module::Binary => "binary.cu",
            Module::Cast => "cast.cu",
            Module::Reduce => "reduce.cu",
            Module::Matmul => "matmul.cu",
            Module::Index => "index.cu",
            Module::Rows => "rows.cu",
        }
    }

    fn body(self) -> &'static str {
        match self {
            Module::Unary => concat!(
                include_str!("../../../../kernels/bessel_jy.cuh"),
                include_str!("../../../../kernels/airy.cuh"),
                include_str!("../../../../kernels/unary.cu")
            ),
            Module::Binary => include_str!("../../../../kernels/binary.cu"),
            Module::Cast => include_str!("../../../../kernels/cast.cu"),
            Module::Reduce => include_str!("../../../../kernels/reduce.cu"),
            Module::Matmul => include_str!("../../../../kernels/matmul.cu"),
            Module::Index => include_str!("../../../../kernels/index.cu"),
            Module::Rows => include_str!("../../../../kernels/rows.cu"),
        }
    }

    /// Every (instantiation line, symbol) pair of this module.
    pub fn instances(self) -> Vec<(String, String)> {
        let numeric = || Dtype::ALL.into_iter().filter(|&d| d != Dtype::Bool);
        let mut v = Vec::new();
        match self {
            Module::Unary => {
                for root in unary::float_ops::NAMES {
                    v.extend(Dtype::ALL.map(|d| {
                        let mac = if capped(root, d) {
                            "UNARY_CAPPED"
                        } else {
                            "UNARY"
                        };
                        instance(mac, root, d, d, d.float_of())
                    }));
                }
                for root in unary::same_ops::NAMES
                    .iter()
                    .chain(unary::HIDDEN_SAME_NAMES)
                {
                    v.extend(numeric().map(|d| instance("UNARY", root, d, d, d)));
                }
            }
            Module::Binary => {
                for root in binary::ops::NAMES {
                    // nextafter steps the stored bits, so its kernel sees the stored type.
                    let mac = if *root == "nextafter" {
                        "BINARY_BITS"
                    } else {
                        "BINARY"
                    };
                    v.extend(numeric().map(|d| instance(mac, root, d, d, d)));
                }
                for root in compare::NAMES {
                    v.extend(Dtype::ALL.map(|d| instance("BINARY", root, d, d, Dtype::Bool)));
                }
                // The fused Adam step: the parameter's float type, moments in its compute type.
                for d in Dtype::ALL.into_iter().filter(|d| d.is_float()) {
                    let acc = match d {
                        Dtype::Float16 | Dtype::Bfloat16 => Dtype::Float32,
                        d => d,
                    };
                    v.push(instance("ADAM_STEP", "adam_step", d, d, acc));
                }
            }
            Module::Cast => {
                for from in Dtype::ALL {
                    let root = cast_root(from);
                    v.extend(Dtype::ALL.map(|to| instance("CAST", &root, to, from, to)));
                    v.push(instance("COPY", "copy", from, from, from));
                }
            }
            Module::Reduce => {
                for d in Dtype::ALL {
                    v.push(instance("REDUCE", "sum", d, d, d.sum_of()));
                    v.push(instance("REDUCE", "product", d, d, d.sum_of()));
                    v.push(instance("REDUCE", "max", d, d, d));
                    v.push(instance("REDUCE", "min", d, d, d));
                    v.push(instance("REDUCE", "argmax", d, d, Dtype::Int64));
                    v.push(instance("REDUCE", "argmin", d, d, Dtype::Int64));
                    v.push(instance("REDUCE", "var", d, d, d.float_of()));
                    v.push(instance("REDUCE", "std", d, d, d.float_of()));
                    v.push(instance("REDUCE", "any", d, d, Dtype::Bool));
                    v.push(instance("REDUCE", "all", d, d, Dtype::Bool));
                    v.extend(SCANS.map(|root| instance("SCAN", root, d, d, d.sum_of())));
                    if d.is_float() {
                        for root in NAN_REDUCTIONS {
                            let out = if root.contains("arg") {
                                Dtype::Int64
                            } else {
                                d
                            };
                            v.push(instance("REDUCE", root, d, d, out));
                        }
                    }
                }
            }
            Module::Matmul => {
                let ints = numeric().filter(|d| !d.is_float());
                v.extend(ints.map(|d| instance("MATMUL", "matmul", d, d, d)));
            }
            Module::Index => {
                for d in Dtype::ALL {
                    for (mac, root) in [
                        ("WHERE", "where"),
                        ("COPY_TO", "copy_to"),
                        ("TAKE", "take"),
                        ("GATHER", "gather"),
                    ] {
                        v.push(instance(mac, root, d, d, d));
                    }
                    v.push(instance("ARGSORT", "argsort", d, d, Dtype::Int64));
                }
                v.extend(numeric().map(|d| instance("ARANGE", "arange", d, d, d)));
                v.extend(numeric().map(|d| instance("SCATTER_ADD", "scatter_add", d, d, d)));
                let floats = Dtype::ALL.into_iter().filter(|d| d.is_float());
                for root in ["rand", "randn"] {
                    v.extend(floats.clone().map(|d| instance("RAND", root, d, d, d)));
                }
            }
            Module::Rows => {
                for d in [Dtype::Float32, Dtype::Float64] {
                    v.extend(ROW_KERNELS.map(|(mac, root)| instance(mac, root, d, d, d)));
                }
            }
        }
        v
    }

    /// The full NVRTC source: the prelude, the family's templates, then one line per kernel.
    pub fn source(self) -> String {
        self.source_where(|_| true)
    }

    /// The NVRTC source of one kernel, the one the launcher compiles.
    pub fn source_for(self, symbol: &str) -> String {
        self.source_where(|s| s == symbol)
    }

    /// The NVRTC source of one dtype group: the kernels whose symbol's [`group_of`] is `group`.
    pub fn source_for_group(self, group: &str) -> String {
        self.source_where(|symbol| group_of(symbol) == group)
    }

    fn source_where(self, keep: impl Fn(&str) -> bool) -> String {
        let mut s = format!("{PRELUDE}\n{}\n", self.body());
        for (line, symbol) in self.instances() {
            if keep(&symbol) {
                s.push_str(&line);
                s.push('\n');
            }
        }
        s
    }
}

/// The symbol of kernel `root` for element type `T`: `symbol::<f32>("sin") == "sin_f32"`.
pub fn symbol<T: Element>(root: &str) -> String {
    kernel_name(root, T::KERNEL_SUFFIX)
}

/// The one spelling of a kernel symbol, `<root>_<suffix>`, for launches and for the table.
fn kernel_name(root: &str, suffix: &str) -> String {
    format!("{root}_{suffix}")
}

/// The unary kernels compiled with at most 32 registers a thread (`UNARY_CAPPED` in
/// `kernels/unary.cu`) and launched with four packs a thread: sin and cos of the 16-bit floats,
/// memory-bound only when enough threads are resident (H100: 108 us for 2^26 bf16 elements
/// uncapped, 95 capped with a quarter grid, PyTorch 93).
pub fn capped(root: &str, d: Dtype) -> bool {
    matches!(root, "sin" | "cos") && matches!(d, Dtype::Float16 | Dtype::Bfloat16)
}

/// The root of the casts from `from`: `cast_f32`, so `cast_f32_i64` casts f32 to i64.
pub fn cast_root(from: Dtype) -> String {
    format!("cast_{}", names(from).1)
}

/// `MACRO(root, suffix, T, O)` and its symbol `root_suffix`, with `suffix` the kernel suffix of
/// `named`, `T` the CUDA type of `input` and `O` that of `output`.
fn instance(mac: &str, root: &str, named: Dtype, input: Dtype, output: Dtype) -> (String, String) {
    let sfx = names(named).1;
    let line = format!(
        "{mac}({root}, {sfx}, {}, {})",
        names(input).0,
        names(output).0
    );
    (line, kernel_name(root, sfx))
}

/// (CUDA type name, kernel suffix) of a dtype, read from its element type.
fn names(d: Dtype) -> (&'static str, &'static str) {
    fn of<T: Element>() -> (&'static str, &'static str) {
        (T::CUDA_TYPE, T::KERNEL_SUFFIX)
    }
    match d {
        Dtype::Float32 => of::<f32>(),
        Dtype::Float64 => of::<f64>(),
        Dtype::Float16 => of::<f16>(),
        Dtype::Bfloat16 => of::<bf16>(),
        Dtype::Int16 => of::<i16>(),
        Dtype::Int32 => of::<i32>(),
        Dtype::Int64 => of::<i64>(),
        Dtype::UInt8 => of::<u8>(),
        Dtype::Bool => of::<bool>(),
    }
}
