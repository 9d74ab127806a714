import pickle, numpy as np, sys
cases=[]
for p in sys.argv[2:]: cases+=pickle.load(open(p,"rb"))
arrays={}; lines=[]
for n,(spec,inputs,outs,rtol,atol) in enumerate(cases):
    f=spec.split("|"); op=f[1]; keys=[k for k in f[2].split(",") if k]; params=f[3:]
    newkeys=[]
    for j,k in enumerate(keys):
        base=k[:-2] if k.endswith(".T") else k
        nk=f"c{n}_in{j}"; arrays[nk]=inputs[base]; newkeys.append(nk+(".T" if k.endswith(".T") else ""))
    for j,o in enumerate(outs): arrays[f"c{n}_out{j}"]=np.asarray(o)
    lines.append("|".join([f"c{n}",op,",".join(newkeys),repr(float(rtol)),repr(float(atol))]+params))
np.savez_compressed(sys.argv[1]+".npz",**arrays)
open(sys.argv[1]+".txt","w").write("\n".join(lines)+"\n")
print(len(lines),"cases")
