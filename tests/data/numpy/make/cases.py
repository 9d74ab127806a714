"""Shared scaffolding of the case generators: random shapes and values over the dtypes, and
the files `npdiff.rs` reads (`/tmp/nd/{in.npz,ref.npz,spec.txt,experr.json}`)."""
import numpy as np, json

D="/tmp/nd"
DT=["float32","float64","float16","int16","int32","int64","uint8","bool"]

class Cases:
    def __init__(self, rng, int_range=50):
        self.rng, self.int_range = rng, int_range
        self.inputs, self.spec, self.refs, self.expect_err = {}, [], {}, []
    def rshape(self, lo=0, maxnd=4):
        nd=int(self.rng.integers(lo, maxnd))
        return tuple(int(self.rng.integers(0 if self.rng.random()<0.08 else 1, 5)) for _ in range(nd))
    def rvals(self, dt, shape):
        rng=self.rng; n=int(np.prod(shape)) if shape else 1
        if dt=="bool": v=rng.random(n)<0.5
        elif dt.startswith("float"):
            v=np.round(rng.standard_normal(n)*4,1); m=rng.random(n)<0.1
            v[m]=rng.choice(np.array([np.nan,np.inf,-np.inf,-0.0]),m.sum()); v=v.astype(dt)
        else:
            r=self.int_range; v=rng.integers(-r if dt!="uint8" else 0, r+1, n).astype(dt)
        return v.reshape(shape)
    def add(self, v):
        k=f"x{len(self.inputs)}"; self.inputs[k]=v; return k
    def case(self, op, keys, params, fn):
        """One case: NumPy's result(s) of `fn`, or an expected error where NumPy raises."""
        cid=f"c{len(self.spec)}"
        self.spec.append("|".join([cid,op,",".join(keys)]+[str(p) for p in params]))
        try:
            with np.errstate(all="ignore"): r=fn()
            for i,x in enumerate(r if isinstance(r, tuple) else (r,)): self.refs[f"{cid}_{i}"]=np.asarray(x)
        except Exception:
            self.expect_err.append(cid)
    def save(self):
        np.savez(f"{D}/in.npz",**self.inputs); np.savez(f"{D}/ref.npz",**self.refs)
        open(f"{D}/spec.txt","w").write("\n".join(self.spec)+"\n")
        json.dump(self.expect_err,open(f"{D}/experr.json","w"))
        print(len(self.spec),"cases")

def j(l): return ",".join(str(int(v)) for v in l) if len(l) else "-"
