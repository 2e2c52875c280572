#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
#
# The longest functions of the code base (issue 30: "the longest non-algorithmic function is
# listed with its length"). A function is a definition whose signature starts in column 0 and
# whose body opens with "{" alone on the next line (the code base's style);
# lambdas and functions inside classes count with their enclosing function.
#
#   tools/refactor/function_lengths.py [ROOT [N]]      (default: . 15)
import os,re,sys
root=sys.argv[1] if len(sys.argv)>1 else '.'
res=[]
for d in ['core','app','gui','plugins']:
    for dp,dn,fn in os.walk(os.path.join(root,d)):
        for f in fn:
            if not f.endswith('.cpp'): continue
            p=os.path.join(dp,f); L=open(p,errors='replace').read().split('\n')
            i=0
            while i<len(L):
                l=L[i]
                # a function definition: a line at column 0 (or 4 inside namespace-less) ending a signature, next line '{' at column 0
                k0=i
                while k0>0 and L[k0].startswith(' ') and i-k0<4: k0-=1
                if i+1<len(L) and L[i+1]=='{' and l and not L[k0].startswith((' ','//','#','}','namespace','struct','class','enum')) and '(' in ''.join(L[k0:i+1]) and l.rstrip().endswith((')','const','override','noexcept')):
                    depth=0; j=i+1
                    while j<len(L):
                        depth+=L[j].count('{')-L[j].count('}')
                        if depth<=0: break
                        j+=1
                    name=l.strip()
                    k=i
                    while '(' not in name and k>0: k-=1; name=L[k].strip()+' '+name
                    res.append((j-i+1,os.path.relpath(p,root),i+1,name[:90]))
                    i=j
                i+=1
res.sort(reverse=True)
for r in res[:int(sys.argv[2]) if len(sys.argv)>2 else 15]: print(*r, sep='  ')
