#!/usr/bin/env python3
"""Random graphs for the NPU code generator, and their check.

    random_graphs.py ATOLL SEED COUNT PROFILE WORKDIR

Writes COUNT random graphs (MatMul and Gemm with epilogues, batched MatMul,
elementwise chains with broadcasts, Softmax, LayerNorm, 1x1 convolutions;
f32 and f16; odd sizes) and runs them with --target npu:PROFILE --verify.
Passes when every graph verifies or fails with a clean compile error that
says what the NPU path does not support (or what does not fit): a wrong
result, a simulator rule, a race or a crash fails.
"""
import json, os, random, subprocess, sys
atoll, seed, n, profile, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
random.seed(seed)
G=[]
def node(op,name,ins,outs,attrs=None):
    d={"op":op,"name":name,"inputs":ins,"outputs":outs}
    if attrs: d["attrs"]=attrs
    return d
for i in range(n):
    kind=random.choice(['mm','gemm','bmm','ew','sm','ln','conv'])
    dt=random.choice(['f32','f32','f16'])
    ins=[]; nodes=[]
    r=lambda a,b: random.randint(a,b)
    if kind=='mm':
        M,K,N=r(1,140),r(1,140),r(1,140)
        ins=[('a',[M,K]),('b',[K,N]),('c',[N])]
        nodes=[node('MatMul','mm',['a','b'],['t']), node('Add','add',['t','c'],['u']), node(random.choice(['Relu','Sigmoid','Tanh','Abs']),'act',['u'],['y'])]
    elif kind=='gemm':
        M,K,N=r(1,100),r(1,100),r(1,100)
        ta,tb=r(0,1),r(0,1)
        ins=[('a',[K,M] if ta else [M,K]),('b',[N,K] if tb else [K,N]),('c',[N])]
        nodes=[node('Gemm','g',['a','b','c'],['y'],{'transA':ta,'transB':tb,'alpha':random.choice([1.0,0.5]),'beta':random.choice([1.0,2.0])})]
    elif kind=='bmm':
        B,M,K,N=r(1,4),r(1,60),r(1,60),r(1,60)
        ins=[('a',[B,M,K]),('b',[B,K,N]) if r(0,1) else ('b',[K,N])]
        nodes=[node('MatMul','mm',['a','b'],['y'])]
    elif kind=='ew':
        R,C=r(1,70),r(1,300)
        ins=[('a',[R,C]),('b',[C]),('c',[R,C])]
        nodes=[node('Mul','m',['a','b'],['t']),node(random.choice(['Add','Sub','Div','Max']),'o',['t','c'],['u']),node(random.choice(['Exp','Neg','Relu','Tanh']),'e',['u'],['y'])]
    elif kind=='sm':
        R,C=r(1,50),r(1,200)
        ins=[('x',[R,C])]; nodes=[node('Softmax','s',['x'],['y'],{'axis':-1})]
    elif kind=='ln':
        R,C=r(1,40),r(2,200)
        ins=[('x',[R,C]),('g',[C]),('b',[C])]; nodes=[node('LayerNormalization','l',['x','g','b'],['y'],{'axis':-1})]
    else:
        Nn,Ci,Co,H,W=r(1,2),r(1,40),r(1,40),r(1,9),r(1,9)
        ins=[('x',[Nn,Ci,H,W]),('w',[Co,Ci,1,1]),('b',[Co])]; nodes=[node('Conv','c',['x','w','b'],['t']),node('Relu','r',['t'],['y'])]
    G.append({"name":"%s_%d"%(kind,i),"inputs":[{"name":a,"shape":s,"dtype":dt} for a,s in ins],"outputs":["y"],"nodes":nodes})
os.makedirs(work, exist_ok=True)
batch = os.path.join(work, "rnd_%d.json" % seed)
report = os.path.join(work, "report_%d.json" % seed)
json.dump({"atoll": 1, "name": "rnd", "graphs": G}, open(batch, "w"))
p = subprocess.run([atoll, "run", batch, "--target", "npu:" + profile, "--verify", "--quiet", "--report", report],
                   capture_output=True, text=True)
if p.returncode not in (0, 1) or not os.path.exists(report):
    sys.exit("atoll exited with %d\n%s" % (p.returncode, p.stderr))
clean = ("not supported on the NPU yet", "but target '", "the NPU path takes one")
bad, ok = [], 0
for g in json.load(open(report))["graphs"]:
    err = g.get("error")
    if err is None and g.get("verify", {}).get("passed") is True:
        ok += 1
    elif err is not None and any(c in err for c in clean):
        continue
    else:
        bad.append("%s: %s" % (g["name"], err or g.get("verify")))
print("%d of %d graphs verified, %d refused cleanly, %d failed" % (ok, len(G), len(G) - ok - len(bad), len(bad)))
for b in bad:
    print("FAILED", b)
sys.exit(1 if bad else 0)
