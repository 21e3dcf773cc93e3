// robotsim's one-file replay player: WebGL 3D view, play/pause/scrub, signal plots.
// It reads the run from the <script id="robotsim-data" type="application/json"> block of
// its page and fetches nothing (the page's Content-Security-Policy forbids it anyway).
// Poses are float64 as recorded: world pose = root pose (x, y, z, qw, qx, qy, qz) of each
// frame at the sample at or before the shown time. See docs/export.md.
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("robotsim-data").textContent);
  const api = { ready: false, firstFrameMs: null, frames: 0, error: null };
  window.robotsim = api;

  function b64(s, Type) {
    const bin = atob(s);
    const u8 = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    return new Type(u8.buffer);
  }

  // ---- matrices: column-major, float64 until they go to the GPU
  function mul(a, b) {
    const o = new Float64Array(16);
    for (let c = 0; c < 4; c++)
      for (let r = 0; r < 4; r++) {
        let s = 0;
        for (let k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
        o[c * 4 + r] = s;
      }
    return o;
  }
  function poseMatrix(p, i) { // p[i..i+7]: x y z qw qx qy qz
    const x = p[i], y = p[i + 1], z = p[i + 2];
    let w = p[i + 3], qx = p[i + 4], qy = p[i + 5], qz = p[i + 6];
    const n = Math.hypot(w, qx, qy, qz) || 1;
    w /= n; qx /= n; qy /= n; qz /= n;
    const m = new Float64Array(16);
    m[0] = 1 - 2 * (qy * qy + qz * qz); m[1] = 2 * (qx * qy + w * qz); m[2] = 2 * (qx * qz - w * qy);
    m[4] = 2 * (qx * qy - w * qz); m[5] = 1 - 2 * (qx * qx + qz * qz); m[6] = 2 * (qy * qz + w * qx);
    m[8] = 2 * (qx * qz + w * qy); m[9] = 2 * (qy * qz - w * qx); m[10] = 1 - 2 * (qx * qx + qy * qy);
    m[12] = x; m[13] = y; m[14] = z; m[15] = 1;
    return m;
  }
  function perspective(fovy, aspect, near, far) {
    const f = 1 / Math.tan(fovy / 2), m = new Float64Array(16);
    m[0] = f / aspect; m[5] = f; m[10] = (far + near) / (near - far); m[11] = -1;
    m[14] = 2 * far * near / (near - far);
    return m;
  }
  function lookAt(e, t) {
    let fx = t[0] - e[0], fy = t[1] - e[1], fz = t[2] - e[2];
    let n = Math.hypot(fx, fy, fz) || 1; fx /= n; fy /= n; fz /= n;
    let sx = fy * 1 - fz * 0, sy = fz * 0 - fx * 1, sz = 0; // f x up(0,0,1)
    n = Math.hypot(sx, sy, sz);
    if (n < 1e-9) { sx = 1; sy = 0; sz = 0; n = 1; }
    sx /= n; sy /= n; sz /= n;
    const ux = sy * fz - sz * fy, uy = sz * fx - sx * fz, uz = sx * fy - sy * fx;
    const m = new Float64Array(16);
    m[0] = sx; m[4] = sy; m[8] = sz;
    m[1] = ux; m[5] = uy; m[9] = uz;
    m[2] = -fx; m[6] = -fy; m[10] = -fz;
    m[12] = -(sx * e[0] + sy * e[1] + sz * e[2]);
    m[13] = -(ux * e[0] + uy * e[1] + uz * e[2]);
    m[14] = fx * e[0] + fy * e[1] + fz * e[2];
    m[15] = 1;
    return m;
  }

  // ---- shapes as triangle lists (positions and normals, in the shape's frame)
  function builder() {
    const P = [], N = [];
    return {
      tri(a, b, c, na, nb, nc) { P.push(...a, ...b, ...c); N.push(...na, ...nb, ...nc); },
      done() { return { pos: new Float32Array(P), nrm: new Float32Array(N) }; },
    };
  }
  const SEG = 20, RINGS = 10;
  function ellipsoid(rx, ry, rz, zlo, zhi, dz) { // the part of it between polar angles
    const g = builder();
    const pt = (th, ph) => {
      const s = Math.sin(th), c = Math.cos(th);
      const u = [s * Math.cos(ph), s * Math.sin(ph), c];
      const p = [rx * u[0], ry * u[1], rz * u[2] + dz];
      let nx = u[0] / rx, ny = u[1] / ry, nz = u[2] / rz;
      const n = Math.hypot(nx, ny, nz);
      return [p, [nx / n, ny / n, nz / n]];
    };
    for (let i = 0; i < RINGS; i++) {
      const t0 = zlo + (zhi - zlo) * i / RINGS, t1 = zlo + (zhi - zlo) * (i + 1) / RINGS;
      for (let j = 0; j < SEG; j++) {
        const p0 = 2 * Math.PI * j / SEG, p1 = 2 * Math.PI * (j + 1) / SEG;
        const a = pt(t0, p0), b = pt(t1, p0), c = pt(t1, p1), d = pt(t0, p1);
        g.tri(a[0], b[0], c[0], a[1], b[1], c[1]);
        g.tri(a[0], c[0], d[0], a[1], c[1], d[1]);
      }
    }
    return g.done();
  }
  function concat(parts) {
    let n = 0;
    for (const p of parts) n += p.pos.length;
    const pos = new Float32Array(n), nrm = new Float32Array(n);
    let o = 0;
    for (const p of parts) { pos.set(p.pos, o); nrm.set(p.nrm, o); o += p.pos.length; }
    return { pos, nrm };
  }
  function cylinder(r, l, caps) {
    const g = builder(), h = l / 2;
    for (let j = 0; j < SEG; j++) {
      const a0 = 2 * Math.PI * j / SEG, a1 = 2 * Math.PI * (j + 1) / SEG;
      const c0 = Math.cos(a0), s0 = Math.sin(a0), c1 = Math.cos(a1), s1 = Math.sin(a1);
      const n0 = [c0, s0, 0], n1 = [c1, s1, 0];
      const p00 = [r * c0, r * s0, -h], p01 = [r * c0, r * s0, h];
      const p10 = [r * c1, r * s1, -h], p11 = [r * c1, r * s1, h];
      g.tri(p00, p10, p11, n0, n1, n1);
      g.tri(p00, p11, p01, n0, n1, n0);
      if (caps) {
        g.tri([0, 0, h], p01, p11, [0, 0, 1], [0, 0, 1], [0, 0, 1]);
        g.tri([0, 0, -h], p10, p00, [0, 0, -1], [0, 0, -1], [0, 0, -1]);
      }
    }
    return g.done();
  }
  function box(sx, sy, sz) {
    const g = builder(), x = sx / 2, y = sy / 2, z = sz / 2;
    const faces = [
      [[1, 0, 0], [[x, -y, -z], [x, y, -z], [x, y, z], [x, -y, z]]],
      [[-1, 0, 0], [[-x, y, -z], [-x, -y, -z], [-x, -y, z], [-x, y, z]]],
      [[0, 1, 0], [[x, y, -z], [-x, y, -z], [-x, y, z], [x, y, z]]],
      [[0, -1, 0], [[-x, -y, -z], [x, -y, -z], [x, -y, z], [-x, -y, z]]],
      [[0, 0, 1], [[-x, -y, z], [x, -y, z], [x, y, z], [-x, y, z]]],
      [[0, 0, -1], [[-x, y, -z], [x, y, -z], [x, -y, -z], [-x, -y, -z]]],
    ];
    for (const [n, q] of faces) { g.tri(q[0], q[1], q[2], n, n, n); g.tri(q[0], q[2], q[3], n, n, n); }
    return g.done();
  }
  function mesh(v, f) {
    const pos = new Float32Array(f.length * 3), nrm = new Float32Array(f.length * 3);
    for (let k = 0; k < f.length; k += 3) {
      const a = f[k] * 3, b = f[k + 1] * 3, c = f[k + 2] * 3;
      const ux = v[b] - v[a], uy = v[b + 1] - v[a + 1], uz = v[b + 2] - v[a + 2];
      const wx = v[c] - v[a], wy = v[c + 1] - v[a + 1], wz = v[c + 2] - v[a + 2];
      let nx = uy * wz - uz * wy, ny = uz * wx - ux * wz, nz = ux * wy - uy * wx;
      const n = Math.hypot(nx, ny, nz) || 1; nx /= n; ny /= n; nz /= n;
      for (let i = 0; i < 3; i++) {
        const s = f[k + i] * 3, o = (k + i) * 3;
        pos[o] = v[s]; pos[o + 1] = v[s + 1]; pos[o + 2] = v[s + 2];
        nrm[o] = nx; nrm[o + 1] = ny; nrm[o + 2] = nz;
      }
    }
    return { pos, nrm };
  }
  function geometry(s) {
    switch (s.type) {
      case "box": return box(s.size[0], s.size[1], s.size[2]);
      case "sphere": return ellipsoid(s.radius, s.radius, s.radius, 0, Math.PI, 0);
      case "ellipsoid": return ellipsoid(s.radii[0], s.radii[1], s.radii[2], 0, Math.PI, 0);
      case "cylinder": return cylinder(s.radius, s.length, true);
      case "capsule": return concat([
        cylinder(s.radius, s.length, false),
        ellipsoid(s.radius, s.radius, s.radius, 0, Math.PI / 2, s.length / 2),
        ellipsoid(s.radius, s.radius, s.radius, Math.PI / 2, Math.PI, -s.length / 2)]);
      case "mesh": return mesh(b64(s.vertices, Float32Array), b64(s.faces, Uint32Array));
    }
    throw new Error("unknown shape " + s.type);
  }

  // ---- the run
  const tracks = D.tracks.map((tr) => ({
    name: tr.name, t: b64(tr.t, Float64Array), pose: b64(tr.pose, Float64Array), frames: tr.frames,
  }));
  const t0 = D.t0, t1 = D.t1;
  function sampleAt(tr, t) { // the sample at or before t (the first before the start)
    const ts = tr.t;
    let lo = 0, hi = ts.length - 1;
    if (t <= ts[0]) return 0;
    if (t >= ts[hi]) return hi;
    while (hi - lo > 1) { const m = (lo + hi) >> 1; if (ts[m] <= t) lo = m; else hi = m; }
    return lo;
  }
  function worldPoses(t) { // frame name -> world matrix (float64, column-major)
    const out = {};
    for (const f of D.frames) {
      const tr = tracks[f.track], k = sampleAt(tr, t);
      out[f.name] = poseMatrix(tr.pose, (k * tr.frames + f.index) * 7);
    }
    return out;
  }

  // ---- WebGL
  const canvas = document.getElementById("view");
  const gl = canvas.getContext("webgl", { antialias: true });
  const draws = [];
  let prog = null, uModel, uVP, uColor, uLight, aPos, aNrm;
  function shader(type, src) {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    return s;
  }
  function upload(g) {
    const vb = gl.createBuffer(); gl.bindBuffer(gl.ARRAY_BUFFER, vb); gl.bufferData(gl.ARRAY_BUFFER, g.pos, gl.STATIC_DRAW);
    const nb = gl.createBuffer(); gl.bindBuffer(gl.ARRAY_BUFFER, nb); gl.bufferData(gl.ARRAY_BUFFER, g.nrm, gl.STATIC_DRAW);
    return { vb, nb, n: g.pos.length / 3 };
  }
  if (gl) {
    prog = gl.createProgram();
    gl.attachShader(prog, shader(gl.VERTEX_SHADER,
      "attribute vec3 aPos; attribute vec3 aNrm; uniform mat4 uModel; uniform mat4 uVP;" +
      "varying vec3 vN; void main() { vN = mat3(uModel) * aNrm;" +
      " gl_Position = uVP * (uModel * vec4(aPos, 1.0)); }"));
    gl.attachShader(prog, shader(gl.FRAGMENT_SHADER,
      "precision mediump float; uniform vec4 uColor; uniform vec3 uLight; varying vec3 vN;" +
      "void main() { float d = abs(dot(normalize(vN), uLight));" +
      " gl_FragColor = vec4(uColor.rgb * (0.38 + 0.62 * d), uColor.a); }"));
    gl.linkProgram(prog);
    if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(prog));
    uModel = gl.getUniformLocation(prog, "uModel"); uVP = gl.getUniformLocation(prog, "uVP");
    uColor = gl.getUniformLocation(prog, "uColor"); uLight = gl.getUniformLocation(prog, "uLight");
    aPos = gl.getAttribLocation(prog, "aPos"); aNrm = gl.getAttribLocation(prog, "aNrm");
    const buffers = D.shapes.map((s) => upload(geometry(s)));
    for (const f of D.frames)
      for (const v of f.visuals) draws.push({ frame: f.name, buf: buffers[v.shape], local: Float64Array.from(v.m), rgba: v.rgba });
    if (D.ground && D.ground.size) {
      draws.push({ frame: null, buf: upload(box(D.ground.size[0], D.ground.size[1], 0.01)),
        local: poseMatrix([0, 0, -0.005, 1, 0, 0, 0], 0), rgba: D.ground.rgba });
    }
    draws.sort((a, b) => (a.rgba[3] < 1) - (b.rgba[3] < 1)); // opaque first
  }

  // ---- camera: orbit round a target, from the studio's framing
  const cam = (function () {
    const e = D.camera.eye, t = D.camera.target;
    const dx = e[0] - t[0], dy = e[1] - t[1], dz = e[2] - t[2];
    const dist = Math.hypot(dx, dy, dz);
    return { target: t.slice(), dist, az: Math.atan2(dy, dx), el: Math.asin(dz / dist), fovy: D.camera.fovy };
  })();
  function eye() {
    const c = Math.cos(cam.el);
    return [cam.target[0] + cam.dist * c * Math.cos(cam.az), cam.target[1] + cam.dist * c * Math.sin(cam.az),
      cam.target[2] + cam.dist * Math.sin(cam.el)];
  }
  let dragging = null;
  canvas.addEventListener("contextmenu", (e) => e.preventDefault());
  canvas.addEventListener("mousedown", (e) => { dragging = { x: e.clientX, y: e.clientY, pan: e.button !== 0 || e.shiftKey }; });
  window.addEventListener("mouseup", () => { dragging = null; });
  window.addEventListener("mousemove", (e) => {
    if (!dragging) return;
    const dx = e.clientX - dragging.x, dy = e.clientY - dragging.y;
    dragging.x = e.clientX; dragging.y = e.clientY;
    if (dragging.pan) {
      const s = cam.dist * 0.0015, ca = Math.cos(cam.az), sa = Math.sin(cam.az);
      cam.target[0] += s * (sa * dx - ca * Math.sin(cam.el) * dy);
      cam.target[1] += s * (-ca * dx - sa * Math.sin(cam.el) * dy);
      cam.target[2] += s * Math.cos(cam.el) * dy;
    } else {
      cam.az -= dx * 0.008;
      cam.el = Math.max(-1.5, Math.min(1.5, cam.el + dy * 0.008));
    }
    redraw = true;
  });
  canvas.addEventListener("wheel", (e) => { e.preventDefault(); cam.dist *= Math.exp(e.deltaY * 0.001); redraw = true; }, { passive: false });

  function drawScene(t) {
    if (!gl) return;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    }
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(0.93, 0.94, 0.95, 1); gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST); gl.enable(gl.BLEND); gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    gl.useProgram(prog);
    const e = eye();
    const span = Math.max(cam.dist, 1);
    const vp = mul(perspective(cam.fovy, canvas.width / Math.max(1, canvas.height), span * 0.005, span * 50), lookAt(e, cam.target));
    gl.uniformMatrix4fv(uVP, false, Float32Array.from(vp));
    const L = [0.35, -0.45, 0.82], n = Math.hypot(...L);
    gl.uniform3f(uLight, L[0] / n, L[1] / n, L[2] / n);
    const poses = worldPoses(t);
    for (const d of draws) {
      const m = d.frame === null ? d.local : mul(poses[d.frame], d.local);
      gl.uniformMatrix4fv(uModel, false, Float32Array.from(m));
      gl.uniform4f(uColor, d.rgba[0], d.rgba[1], d.rgba[2], d.rgba[3]);
      gl.bindBuffer(gl.ARRAY_BUFFER, d.buf.vb); gl.enableVertexAttribArray(aPos); gl.vertexAttribPointer(aPos, 3, gl.FLOAT, false, 0, 0);
      gl.bindBuffer(gl.ARRAY_BUFFER, d.buf.nb); gl.enableVertexAttribArray(aNrm); gl.vertexAttribPointer(aNrm, 3, gl.FLOAT, false, 0, 0);
      gl.drawArrays(gl.TRIANGLES, 0, d.buf.n);
    }
  }

  // ---- plots
  const plots = D.plots.map((p) => ({ label: p.group + ": " + p.name, t: b64(p.t, Float32Array), v: b64(p.v, Float32Array), on: p.on }));
  const select = document.getElementById("signals");
  plots.forEach((p, i) => {
    const o = document.createElement("option");
    o.value = String(i); o.textContent = p.label; o.selected = p.on;
    select.appendChild(o);
  });
  select.addEventListener("change", () => { plots.forEach((p, i) => { p.on = select.options[i].selected; }); redraw = true; });
  const plot = document.getElementById("plot");
  const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
  function drawPlot(t) {
    const ctx = plot.getContext("2d");
    const w = plot.clientWidth, h = plot.clientHeight;
    if (plot.width !== w || plot.height !== h) { plot.width = w; plot.height = h; }
    ctx.clearRect(0, 0, w, h);
    const on = plots.filter((p) => p.on);
    let lo = Infinity, hi = -Infinity;
    for (const p of on) for (const v of p.v) { if (v < lo) lo = v; if (v > hi) hi = v; }
    if (!(hi > lo)) { lo -= 1; hi += 1; }
    const L = 46, R = 8, T = 8, B = 22;
    const X = (tt) => L + (w - L - R) * (tt - t0) / Math.max(1e-9, t1 - t0);
    const Y = (v) => T + (h - T - B) * (hi - v) / (hi - lo);
    ctx.strokeStyle = "#999"; ctx.strokeRect(L, T, w - L - R, h - T - B);
    ctx.fillStyle = "#333"; ctx.font = "11px sans-serif";
    ctx.fillText(hi.toPrecision(4), 2, T + 9); ctx.fillText(lo.toPrecision(4), 2, h - B);
    ctx.fillText(t0.toFixed(2) + " s", L, h - 6); ctx.fillText(t1.toFixed(2) + " s", w - R - 44, h - 6);
    ctx.fillStyle = "rgba(220, 40, 40, 0.13)"; // collision intervals, shaded
    for (const iv of D.intervals || []) ctx.fillRect(X(iv.start), T, Math.max(1, X(iv.end) - X(iv.start)), h - T - B);
    on.forEach((p, k) => {
      ctx.strokeStyle = COLORS[k % COLORS.length]; ctx.beginPath();
      for (let i = 0; i < p.t.length; i++) { const x = X(p.t[i]), y = Y(p.v[i]); if (i) ctx.lineTo(x, y); else ctx.moveTo(x, y); }
      ctx.stroke();
      ctx.fillStyle = ctx.strokeStyle; ctx.fillText(p.label, L + 6, T + 14 + 13 * k);
    });
    for (const e of D.events) { ctx.fillStyle = "#c00"; ctx.fillRect(X(e.t) - 1, h - B - 6, 2, 6); }
    ctx.strokeStyle = "#000"; ctx.beginPath(); ctx.moveTo(X(t), T); ctx.lineTo(X(t), h - B); ctx.stroke();
  }

  // ---- time, play, scrub
  let t = t0, playing = false, last = null, redraw = true;
  const playBtn = document.getElementById("play"), scrub = document.getElementById("scrub");
  const label = document.getElementById("time"), speedSel = document.getElementById("speed");
  function setTime(v) { t = Math.max(t0, Math.min(t1, v)); redraw = true; }
  function setPlaying(p) { playing = p; playBtn.textContent = p ? "Pause" : "Play"; last = null; if (p && t >= t1) setTime(t0); }
  playBtn.addEventListener("click", () => setPlaying(!playing));
  scrub.addEventListener("input", () => { setTime(t0 + (t1 - t0) * scrub.value / 10000); });
  window.addEventListener("keydown", (e) => { if (e.code === "Space" && e.target === document.body) { e.preventDefault(); setPlaying(!playing); } });
  function frame(now) {
    if (playing) {
      if (last !== null) setTime(t + (now - last) / 1000 * Number(speedSel.value));
      last = now;
      if (t >= t1) setPlaying(false);
    }
    if (redraw) {
      redraw = false;
      try { drawScene(t); drawPlot(t); } catch (err) { api.error = String(err); throw err; }
      scrub.value = String(Math.round(10000 * (t - t0) / Math.max(1e-9, t1 - t0)));
      label.textContent = "t = " + t.toFixed(2) + " s";
      api.frames += 1;
      if (api.firstFrameMs === null) { api.firstFrameMs = performance.now(); api.ready = true; }
    }
    requestAnimationFrame(frame);
  }
  window.addEventListener("resize", () => { redraw = true; });
  api.setTime = setTime;
  api.time = () => t;
  api.play = setPlaying;
  api.webgl = !!gl;
  api.poses = () => { // the world matrices drawn now, row-major, by frame name
    const out = {}, p = worldPoses(t);
    for (const k in p) { const m = p[k]; out[k] = [0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((c) => m[c * 4 + r])); }
    return out;
  };
  if (!gl) document.getElementById("nogl").style.display = "block";
  requestAnimationFrame(frame);
})();
