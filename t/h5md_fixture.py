"""Development fixture for t/analyze.sh until mcens writes the H5MD layout of issue 17: converts
an output without /particles into that layout (/h5md, /particles/chain_%06d with F frames, the last
the final positions and the earlier ones jittered copies, /observables, and /chains/rdf_g as the
pooled g(r) with 3% noise per chain), removing /chains/final_* and box_length as the layout does.
Usage: h5md_fixture.py IN.h5 OUT.h5 F"""
import sys, shutil, configparser, h5py, numpy as np
src, dst, F = sys.argv[1], sys.argv[2], int(sys.argv[3])
shutil.copy(src, dst)
rng = np.random.default_rng(1)
with h5py.File(dst, 'r+') as f:
    cfg = configparser.ConfigParser(inline_comment_prefixes=(';', '#'), strict=False, interpolation=None)
    cfg.read_string(f['parameters'][()].decode())
    eq = cfg.getint('run', 'equilibration', fallback=2000); se = cfg.getint('run', 'sample_every', fallback=10)
    C, K = f['chains/energy'].shape
    lu = f['chains/final_positions'].attrs['unit']
    periodic = f['statepoints/box_length'][0] > 0
    g = f.create_group('h5md'); g.attrs['version'] = np.array([1, 1], np.int32)
    g.create_group('author').attrs['name'] = 'fixture'
    c = g.create_group('creator'); c.attrs['name'] = 'mcens'; c.attrs['version'] = '0.1.0'
    steps = np.array([eq + (j + 1) * (K // F) * se for j in range(F - 1)] + [eq + K * se], np.int64)
    nsp = f['species/name'].shape[0]; counts = f['species/count'][:]
    for k in range(C):
        p = f.create_group('particles/chain_%06d' % k)
        p.attrs['statepoint'] = np.int32(f['chains/statepoint'][k]); p.attrs['replica'] = np.int32(f['chains/replica'][k])
        box = p.create_group('box'); box.attrs['dimension'] = np.int32(3)
        box.attrs['boundary'] = np.array([b'periodic' if periodic else b'none'] * 3)
        pos = f['chains/final_positions'][k]
        L = f['chains/box_length'][k]
        frames = np.stack([pos + (0 if j == F - 1 else rng.normal(0, 0.01, pos.shape)) for j in range(F)])
        if periodic: frames %= L
        pg = p.create_group('position')
        pg['step'] = steps; pg['time'] = steps.astype(float); pg['time'].attrs['unit'] = 'sweeps'
        pg['value'] = frames; pg['value'].attrs['unit'] = lu
        if periodic:
            e = box.create_group('edges'); e['step'] = pg['step']; e['time'] = pg['time']
            e['value'] = np.full((F, 3), L); e['value'].attrs['unit'] = lu
        if 'molecules' in f:
            site_species = f['molecules/site_species'][:]; mt = f['molecules/molecule_type'][:]
            sp = np.concatenate([site_species[t][site_species[t] >= 0] for t in mt]).astype(np.int32)
            p['molecule'] = f['molecules/site_molecule'][:].astype(np.int32)
        else:
            sp = np.repeat(np.arange(nsp), counts).astype(np.int32)
        p['species'] = sp
    for name in ('energy', 'pressure', 'density', 'enthalpy'):
        if 'chains/' + name in f:
            o = f.create_group('observables/' + name)
            st = np.array([eq + (i + 1) * se for i in range(K)], np.int64)
            o['step'] = st; o['time'] = st.astype(float); o['time'].attrs['unit'] = 'sweeps'
            o['value'] = f['chains/' + name][:].T; o['value'].attrs['unit'] = f['chains/' + name].attrs['unit']
    gp = f['results/rdf/g'][:]
    sp_of = f['chains/statepoint'][:]
    rg = np.stack([gp[sp_of[k]] * (1 + rng.normal(0, 0.03, gp.shape[1:])) for k in range(C)])
    f['chains/rdf_g'] = rg; f['chains/rdf_g'].attrs['unit'] = '1'
    f['chains/rdf_g'].attrs['description'] = "each chain's own g(r)"
    for n in ('final_positions', 'box_length', 'final_centres', 'final_orientations'):
        if 'chains/' + n in f: del f['chains/' + n]
