import numpy as np
ref=np.load("/tmp/gf/ref.npz"); out=np.load("/tmp/gf/out.npz")
progs={}; cur=None
for line in open("/tmp/gf/progs.txt"):
    line=line.rstrip("\n")
    if line.startswith("#"): cur=line[1:].split()[0]; progs[cur]=[]
    else: progs[cur].append(line)
errs=open("/tmp/gf/errs.txt").read().strip().splitlines()
for e in errs: print("ERR", e, progs[e.split(':')[0][1:]])
bad=0
for k in ref.files:
    if k not in out.files: continue
    r=ref[k]; g=out[k]
    if r.shape!=g.shape or not np.allclose(g,r,rtol=1e-6,atol=1e-8,equal_nan=True):
        p=k.split('_')[0][1:]
        cast="cast" in "".join(progs[p])
        if cast and r.shape==g.shape and np.allclose(g,r,rtol=1e-4,atol=1e-5): continue
        bad+=1; print("DIFF",k,progs[p],"\n  got",g.flatten()[:8],"\n  want",r.flatten()[:8])
print("compared",len(ref.files),"bad",bad,"errs",len(errs))
