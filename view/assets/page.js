// codexrec view: renders the JSON data block of this page. Recorded content is only
// ever assigned with textContent, never parsed as markup. Rows are built lazily, a
// chunk at a time as the list scrolls, so large recordings open quickly.
(function () {
  'use strict';
  var t0 = performance.now();
  var CHUNK = 200;
  var data = JSON.parse(document.getElementById('codexrec-data').textContent);

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmtT(t) { return (t || 0).toFixed(3) + 's'; }
  function fmtLat(l) { return l < 1 ? (l * 1000).toFixed(1) + 'ms' : l.toFixed(3) + 's'; }
  function short(id) { return id && id.length > 13 ? id.slice(0, 8) + '…' + id.slice(-4) : id; }

  // pretty re-indents JSON text without parsing numbers, so large integers and the
  // order of members stay exactly as recorded.
  function pretty(s) {
    var out = [], ind = 0, inStr = false, esc = false, start = 0;
    function nl() { out.push('\n' + '  '.repeat(Math.max(ind, 0))); }
    for (var i = 0; i < s.length; i++) {
      var c = s[i];
      if (inStr) {
        if (esc) esc = false;
        else if (c === '\\') esc = true;
        else if (c === '"') { inStr = false; out.push(s.slice(start, i + 1)); }
        continue;
      }
      switch (c) {
        case '"': inStr = true; start = i; break;
        case '{': case '[':
          var j = i + 1;
          while (j < s.length && ' \t\r\n'.indexOf(s[j]) >= 0) j++;
          if (s[j] === (c === '{' ? '}' : ']')) { out.push(c + s[j]); i = j; break; }
          ind++; out.push(c); nl(); break;
        case '}': case ']': ind--; nl(); out.push(c); break;
        case ',': out.push(','); nl(); break;
        case ':': out.push(': '); break;
        case ' ': case '\t': case '\r': case '\n': break;
        default: out.push(c);
      }
    }
    if (inStr) out.push(s.slice(start));
    return out.join('');
  }

  // ---- page skeleton -------------------------------------------------------------
  var header = el('header');
  header.appendChild(el('h1', '', data.title));
  var info = el('div', 'info');
  header.appendChild(info);
  var controls = el('div', 'controls');
  var filter = el('input');
  filter.id = 'filter'; filter.type = 'search'; filter.placeholder = 'filter: method, text, JSON, #seq  (/)';
  filter.setAttribute('aria-label', 'filter frames');
  var status = el('span', 'keys'); status.id = 'status';
  header.appendChild(controls);
  var keysLine = el('div', 'keys');
  header.appendChild(keysLine);
  document.body.appendChild(header);

  if (data.mode === 'diff') { renderDiff(); return; }

  var deltasBox = el('input'); deltasBox.type = 'checkbox'; deltasBox.id = 'deltas';
  var deltasLabel = el('label', '', ' each delta'); deltasLabel.prepend(deltasBox);
  var collapseAll = el('button', '', 'collapse turns'); collapseAll.id = 'collapse-all';
  var expandAll = el('button', '', 'expand turns'); expandAll.id = 'expand-all';
  var nextNote = el('button', '', 'next finding (n)'); nextNote.id = 'next-note';
  [filter, deltasLabel, collapseAll, expandAll, nextNote, status].forEach(function (c) { controls.appendChild(c); });
  keysLine.textContent = 'keys: j/k or ↓/↑ move · Enter expand · / filter · Esc leave filter · n/N next/previous finding · p go to the joined request/response · c collapse turn · d each delta';

  var S = data.sessions[0];
  var F = S.frames, B = S.blocks;
  var h = S.header || {};
  var notesTotal = { finding: 0, redaction: 0 };
  var bySeq = new Map(), blockCount = new Array(B.length).fill(0);
  F.forEach(function (f, i) {
    if (f.d) bySeq.set(f.s, i);
    blockCount[f.b]++;
    (f.n || []).forEach(function (n) { notesTotal[n.type] = (notesTotal[n.type] || 0) + 1; });
  });
  [['codex', h.codexVersion], ['scenario', h.scenario], ['started', h.started],
   ['frames', F.filter(function (f) { return f.d; }).length],
   ['findings', notesTotal.finding], ['redactions', notesTotal.redaction],
   ['ended', S.trailer ? S.trailer.ended + ', exit ' + S.trailer.exitCode + ', ' + S.trailer.duration.toFixed(3) + 's' : 'no trailer (cut short)']
  ].forEach(function (kv) {
    if (kv[1] !== undefined && kv[1] !== '') info.appendChild(el('span', '', kv[0] + ' ' + kv[1]));
  });

  var lanes = el('div', 'lanes');
  ['time', 'seq', 'client', 'server'].forEach(function (n) { lanes.appendChild(el('div', '', n)); });
  document.body.appendChild(lanes);
  var list = el('div'); list.id = 'list'; list.setAttribute('role', 'list');
  document.body.appendChild(list);
  var sentinel = el('div'); sentinel.id = 'sentinel';

  // ---- state ---------------------------------------------------------------------
  var collapsed = new Set();  // block keys
  var expanded = new Set();   // frame indexes
  var showDeltas = false, query = '';
  var display = [];           // {g: block} or {i: frame}
  var posOf = new Int32Array(F.length);
  var rendered = 0, sel = -1;
  var hay = null;             // lower-cased search text per frame, built on first filter

  function blockKey(b) { var k = B[b]; return k.seg + '|' + (k.thread || '') + '|' + (k.turn || ''); }
  function blockLabel(b) {
    var k = B[b];
    if (!k.thread) return k.seg > 1 ? 'server process ' + k.seg : 'session';
    return 'thread ' + k.thread + (k.turn ? ' · turn ' + k.turn : '');
  }
  function haystack(i) {
    if (!hay) hay = new Array(F.length);
    if (hay[i] === undefined) {
      var f = F[i];
      hay[i] = ('#' + f.s + ' ' + (f.m || '') + ' ' + (f.u || '') + ' ' + (f.rt || '') + ' ' + (f.j || '') + ' ' +
        (f.n || []).map(function (n) { return n.type + ' ' + n.rule + ' ' + n.pointer; }).join(' ')).toLowerCase();
    }
    return hay[i];
  }

  function buildDisplay() {
    display = []; posOf.fill(-1);
    var lastB = -1, q = query.toLowerCase(), shown = 0;
    for (var i = 0; i < F.length; i++) {
      var f = F[i];
      if (!showDeltas && f.ir) continue;
      if (q && haystack(i).indexOf(q) < 0) continue;
      if (f.b !== lastB) { display.push({ g: f.b }); lastB = f.b; }
      shown++;
      if (collapsed.has(blockKey(f.b))) continue;
      posOf[i] = display.length;
      display.push({ i: i });
    }
    status.textContent = shown + ' of ' + F.length + ' lines';
  }

  function makeGroup(d, pos) {
    var g = el('div', 'group');
    g.dataset.pos = pos; g.dataset.block = d.g;
    var c = collapsed.has(blockKey(d.g));
    g.appendChild(el('span', 'twisty', c ? '▸ ' : '▾ '));
    g.appendChild(el('span', 'label', blockLabel(d.g)));
    g.appendChild(el('span', 'count', blockCount[d.g] + ' lines'));
    g.setAttribute('aria-expanded', String(!c));
    return g;
  }

  function makeRow(i, pos) {
    var f = F[i];
    var row = el('div', 'row ' + (f.d || 'event') + (f.k === 'error' ? ' kerror' : ''));
    row.dataset.pos = pos; row.dataset.i = i; row.dataset.seq = f.s;
    row.setAttribute('role', 'listitem');
    row.appendChild(el('span', 'time', fmtT(f.t)));
    row.appendChild(el('span', 'seq', f.d ? '#' + f.s : ''));
    var b = el('div', 'bubble');
    if (f.d) {
      var arrow = f.d === 'c2s' ? '→ ' : f.d === 's2c' ? '← ' : '! ';
      b.appendChild(el('span', 'kind', arrow + (f.k || 'stderr')));
      if (f.m) b.appendChild(el('span', 'method', f.m));
      if (f.i) b.appendChild(el('span', 'id', '[' + f.i + ']'));
      if (f.r && !showDeltas) b.appendChild(el('span', 'badge run', '×' + f.r + ' deltas'));
      if (f.p) {
        var answer = f.k === 'response' || f.k === 'error';
        var a = el('span', 'pair', answer ? '↩ #' + f.p + ' ' + fmtLat(f.l || 0) : '→ #' + f.p);
        a.dataset.seq = f.p; a.title = answer ? 'answers request #' + f.p : 'answered by #' + f.p;
        b.appendChild(a);
      } else if (f.x) b.appendChild(el('span', 'badge finding', 'unpaired'));
      (f.n || []).forEach(function (n) {
        var badge = el('span', 'badge ' + n.type, n.type === 'finding' ? '⚑ ' + n.rule : '✂ ' + n.rule);
        badge.title = (n.pointer || '(whole message)') + (n.reason ? ': ' + n.reason : '') + (n.detail ? ' → ' + n.detail : '');
        b.appendChild(badge);
        row.classList.add('has-' + n.type);
      });
    }
    var text = f.r && !showDeltas ? JSON.stringify(f.rt) : f.u;
    b.appendChild(el('div', 'sum', text || ''));
    row.appendChild(b);
    return row;
  }

  function makeDetail(i) {
    var f = F[i], d = el('div', 'detail');
    d.dataset.detail = i;
    (f.n || []).forEach(function (n) {
      d.appendChild(el('div', 'note ' + n.type, (n.type === 'finding' ? '⚑ finding ' + (n.severity || '') + ' ' : '✂ redacted ') +
        n.rule + ' at ' + (n.pointer || '(whole message)') + (n.reason ? ': ' + n.reason : '') + (n.detail ? ' → ' + n.detail : '')));
    });
    if (f.r && !showDeltas) d.appendChild(el('div', '', f.r + ' deltas from #' + f.s + ', joined text:'));
    if (f.r && !showDeltas) d.appendChild(el('pre', 'runtext', f.rt));
    var pre = el('pre', 'json', f.k && f.k !== 'raw' ? pretty(f.j || '') : (f.j || f.u || ''));
    d.appendChild(pre);
    return d;
  }

  function renderMore(n) {
    var end = Math.min(display.length, rendered + n);
    var frag = document.createDocumentFragment();
    for (; rendered < end; rendered++) {
      var d = display[rendered];
      if (d.g !== undefined) { frag.appendChild(makeGroup(d, rendered)); continue; }
      frag.appendChild(makeRow(d.i, rendered));
      if (expanded.has(d.i)) frag.appendChild(makeDetail(d.i));
    }
    list.appendChild(frag);
    list.appendChild(sentinel);
    observer.unobserve(sentinel); observer.observe(sentinel);
  }

  function render() {
    var selI = sel >= 0 && display[sel] ? display[sel] : null;
    buildDisplay();
    list.textContent = '';
    rendered = 0; sel = -1;
    if (!display.length) list.appendChild(el('div', 'empty', 'no frames match'));
    renderMore(CHUNK);
    if (selI) {
      var p = selI.i !== undefined ? posOf[selI.i] : display.findIndex(function (d) { return d.g === selI.g; });
      if (p >= 0) select(p, true);
    }
  }

  var observer = new IntersectionObserver(function (es) {
    if (es.some(function (e) { return e.isIntersecting; }) && rendered < display.length) renderMore(CHUNK);
  }, { rootMargin: '600px' });

  function nodeAt(pos) {
    while (pos >= rendered && rendered < display.length) renderMore(CHUNK);
    return list.querySelector('[data-pos="' + pos + '"]');
  }

  function select(pos, quiet) {
    if (pos < 0 || pos >= display.length) return;
    var old = list.querySelector('.sel');
    if (old) old.classList.remove('sel');
    var n = nodeAt(pos);
    if (!n) return;
    sel = pos;
    n.classList.add('sel');
    if (!quiet) n.scrollIntoView({ block: 'nearest' });
  }

  function toggle(pos) {
    var d = display[pos];
    if (!d) return;
    if (d.g !== undefined) {
      var k = blockKey(d.g);
      if (collapsed.has(k)) collapsed.delete(k); else collapsed.add(k);
      sel = pos; render();
      return;
    }
    var row = nodeAt(pos);
    if (expanded.has(d.i)) {
      expanded.delete(d.i);
      var det = row.nextSibling;
      if (det && det.dataset && det.dataset.detail !== undefined) det.remove();
    } else {
      expanded.add(d.i);
      row.after(makeDetail(d.i));
    }
    select(pos);
  }

  // reveal makes frame i visible (clearing what hides it) and selects it.
  function reveal(i) {
    if (i === undefined) return;
    var f = F[i], changed = false;
    if (f.ir && !showDeltas) { showDeltas = deltasBox.checked = true; changed = true; }
    if (collapsed.delete(blockKey(f.b))) changed = true;
    if (query && haystack(i).indexOf(query.toLowerCase()) < 0) { query = filter.value = ''; changed = true; }
    if (changed) render();
    select(posOf[i]);
  }

  function nextWithNotes(dir) {
    for (var p = sel + dir; p >= 0 && p < display.length; p += dir) {
      var d = display[p];
      if (d.i !== undefined && F[d.i].n) { select(p); return; }
    }
    // Findings hidden in collapsed turns or runs: search all frames.
    var cur = sel >= 0 && display[sel] && display[sel].i !== undefined ? display[sel].i : (dir > 0 ? -1 : F.length);
    for (var i = cur + dir; i >= 0 && i < F.length; i += dir) if (F[i].n) { reveal(i); return; }
  }

  // ---- events --------------------------------------------------------------------
  list.addEventListener('click', function (ev) {
    var pair = ev.target.closest('.pair');
    if (pair) { reveal(bySeq.get(Number(pair.dataset.seq))); return; }
    if (ev.target.closest('.detail')) return;
    var n = ev.target.closest('[data-pos]');
    if (n) toggle(Number(n.dataset.pos));
  });
  var hovered = [];
  list.addEventListener('mouseover', function (ev) {
    var row = ev.target.closest('.row');
    hovered.forEach(function (n) { n.classList.remove('paired'); });
    hovered = [];
    if (!row) return;
    var f = F[Number(row.dataset.i)];
    if (!f || !f.p) return;
    var other = list.querySelector('.row[data-seq="' + f.p + '"]');
    if (other) { other.classList.add('paired'); row.classList.add('paired'); hovered = [other, row]; }
  });
  var timer = 0;
  filter.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(function () { query = filter.value.trim(); sel = -1; render(); }, 120);
  });
  deltasBox.addEventListener('change', function () { showDeltas = deltasBox.checked; render(); });
  collapseAll.addEventListener('click', function () {
    B.forEach(function (k, b) { if (k.turn) collapsed.add(blockKey(b)); }); render();
  });
  expandAll.addEventListener('click', function () { collapsed.clear(); render(); });
  nextNote.addEventListener('click', function () { nextWithNotes(1); });
  document.addEventListener('keydown', function (ev) {
    if (ev.target === filter) {
      if (ev.key === 'Escape' || ev.key === 'Enter') {
        if (ev.key === 'Escape' && filter.value === '') { filter.blur(); return; }
        clearTimeout(timer); query = filter.value.trim(); render();
        filter.blur(); if (display.length) select(0);
        ev.preventDefault();
      }
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var d = display[sel];
    switch (ev.key) {
      case 'j': case 'ArrowDown': select(sel + 1); break;
      case 'k': case 'ArrowUp': select(Math.max(sel - 1, 0)); break;
      case 'Enter': case 'o': case ' ': if (sel >= 0) toggle(sel); break;
      case '/': filter.focus(); filter.select(); break;
      case 'n': nextWithNotes(1); break;
      case 'N': nextWithNotes(-1); break;
      case 'p': if (d && d.i !== undefined && F[d.i].p) reveal(bySeq.get(F[d.i].p)); break;
      case 'c':
        if (d) {
          var b = d.g !== undefined ? d.g : F[d.i].b;
          collapsed.add(blockKey(b)); render();
          select(display.findIndex(function (x) { return x.g === b; }));
        }
        break;
      case 'd': deltasBox.checked = showDeltas = !showDeltas; render(); break;
      case 'g': case 'Home': select(0); break;
      default: return;
    }
    ev.preventDefault();
  });

  render();
  window.codexrecLoadMs = performance.now() - t0;
  document.body.dataset.ready = '1';

  // ---- diff mode: two sessions aligned per direction ----------------------------
  function renderDiff() {
    var D = data.diff, R = D.report, OS = data.sessions[0], NS = data.sessions[1];
    document.body.classList.add('dmode');
    [['old', R.old], ['new', R.new]].forEach(function (kv) {
      info.appendChild(el('span', '', kv[0] + ' ' + kv[1].name + (kv[1].codexVersion ? ' (codex ' + kv[1].codexVersion + ')' : '')));
    });
    var verdict = el('span', R.same ? 'same' : 'differs', R.same ? 'same after normalisation' : R.groups.length + ' groups of changes');
    verdict.id = 'verdict';
    info.appendChild(verdict);
    var onlyBox = el('input'); onlyBox.type = 'checkbox'; onlyBox.id = 'only-diff';
    var onlyLabel = el('label', '', ' only differences'); onlyLabel.prepend(onlyBox);
    var nextDiff = el('button', '', 'next difference (n)'); nextDiff.id = 'next-diff';
    [filter, onlyLabel, nextDiff, status].forEach(function (c) { controls.appendChild(c); });
    keysLine.textContent = 'keys: j/k or ↓/↑ move · Enter expand both messages · / filter · Esc leave filter · n/N next/previous difference';

    function dirName(d) { return d === 'c2s' ? 'client → server (c2s)' : d === 's2c' ? 'server → client (s2c)' : d; }
    var sum = el('section', 'dsummary'); sum.id = 'summary';
    R.directions.forEach(function (d) {
      sum.appendChild(el('div', '', dirName(d.dir) + ': old ' + d.old + ', new ' + d.new + ', aligned ' + d.aligned +
        ' (' + d.changed + ' changed), added ' + d.added + ', removed ' + d.removed));
    });
    (R.methodsAdded || []).forEach(function (m) { sum.appendChild(el('div', 'dadd', '+ ' + m.dir + ' ' + m.kind + ' ' + m.method + ' ×' + m.count)); });
    (R.methodsRemoved || []).forEach(function (m) { sum.appendChild(el('div', 'ddel', '− ' + m.dir + ' ' + m.kind + ' ' + m.method + ' ×' + m.count)); });
    R.groups.forEach(function (g) {
      var box = el('div', 'dgroup');
      box.appendChild(el('div', 'method', g.dir + ' ' + g.kind + ' ' + g.method));
      g.changes.forEach(function (c) {
        var line = el('div', 'dchange', changeText(c) + (c.count > 1 ? ' ×' + c.count : '') +
          ' (' + (c.oldSeq ? 'old #' + c.oldSeq : '') + (c.oldSeq && c.newSeq ? ', ' : '') + (c.newSeq ? 'new #' + c.newSeq : '') + ')');
        line.dataset.dir = g.dir; line.dataset.old = c.oldSeq || 0; line.dataset.new = c.newSeq || 0;
        box.appendChild(line);
      });
      sum.appendChild(box);
    });
    document.body.appendChild(sum);
    function changeText(c) {
      return c.change + (c.pointer ? ' ' + c.pointer : '') + (c.old !== undefined ? ' ' + c.old : '') + (c.new !== undefined ? (c.old !== undefined ? ' → ' : ' ') + c.new : '');
    }

    var lanes = el('div', 'lanes dgrid');
    ['', 'old: ' + R.old.name, 'new: ' + R.new.name].forEach(function (n) { lanes.appendChild(el('div', '', n)); });
    document.body.appendChild(lanes);
    var list = el('div'); list.id = 'list';
    document.body.appendChild(list);
    var sentinel = el('div'); sentinel.id = 'sentinel';

    var steps = [];
    D.lanes.forEach(function (ln, li) { ln.steps.forEach(function (st) { steps.push({ li: li, st: st }); }); });
    function mark(st) { return st.o < 0 ? 'add' : st.n < 0 ? 'del' : (st.c && st.c.length ? 'chg' : 'same'); }
    var hay = new Array(steps.length);
    function haystack(k) {
      if (hay[k] === undefined) {
        var st = steps[k].st, parts = [];
        [[OS, st.o], [NS, st.n]].forEach(function (p) {
          var f = p[1] >= 0 ? p[0].frames[p[1]] : null;
          if (f) parts.push('#' + f.s, f.m || '', f.u || '', f.j || '');
        });
        (st.c || []).forEach(function (c) { parts.push(changeText(c)); });
        hay[k] = parts.join(' ').toLowerCase();
      }
      return hay[k];
    }
    var display = [], rendered = 0, sel = -1, expanded = new Set(), query = '', only = false;
    function build() {
      display = []; var last = -1, q = query.toLowerCase(), n = 0;
      for (var k = 0; k < steps.length; k++) {
        if (only && mark(steps[k].st) === 'same') continue;
        if (q && haystack(k).indexOf(q) < 0) continue;
        if (steps[k].li !== last) { last = steps[k].li; display.push({ h: last }); }
        display.push({ k: k }); n++;
      }
      status.textContent = n + ' of ' + steps.length + ' aligned steps';
    }
    function cell(S, i, side) {
      var b = el('div', 'bubble ' + side);
      if (i < 0) return b;
      var f = S.frames[i];
      b.appendChild(el('span', 'seq', '#' + f.s));
      b.appendChild(el('span', 'kind', f.k || ''));
      if (f.m) b.appendChild(el('span', 'method', f.m));
      if (f.i) b.appendChild(el('span', 'id', '[' + f.i + ']'));
      b.appendChild(el('div', 'sum', f.u || ''));
      return b;
    }
    var marks = { same: '=', chg: '~', add: '+', del: '−' };
    function makeItem(d, pos) {
      if (d.h !== undefined) {
        var g = el('div', 'group', dirName(D.lanes[d.h].dir));
        g.dataset.pos = pos;
        return g;
      }
      var st = steps[d.k].st, m = mark(st);
      var row = el('div', 'row drow d-' + m);
      row.dataset.pos = pos; row.dataset.k = d.k; row.dataset.mark = m;
      row.appendChild(el('span', 'diffmark', marks[m]));
      row.appendChild(cell(OS, st.o, 'old'));
      row.appendChild(cell(NS, st.n, 'new'));
      if (m === 'chg') {
        var cs = el('div', 'dchanges');
        st.c.slice(0, 4).forEach(function (c) { cs.appendChild(el('div', '', changeText(c))); });
        if (st.c.length > 4) cs.appendChild(el('div', '', '… ' + (st.c.length - 4) + ' more'));
        row.appendChild(cs);
      }
      return row;
    }
    function makeDetail(k) {
      var st = steps[k].st, d = el('div', 'detail');
      d.dataset.detail = k;
      (st.c || []).forEach(function (c) { d.appendChild(el('div', 'note finding', changeText(c))); });
      var side = el('div', 'dside');
      [[OS, st.o], [NS, st.n]].forEach(function (p) {
        var f = p[1] >= 0 ? p[0].frames[p[1]] : null;
        side.appendChild(el('pre', 'json', f ? (f.k && f.k !== 'raw' ? pretty(f.j || '') : f.j) : '(none)'));
      });
      d.appendChild(side);
      return d;
    }
    var observer = new IntersectionObserver(function (es) {
      if (es.some(function (e) { return e.isIntersecting; }) && rendered < display.length) more(CHUNK);
    }, { rootMargin: '600px' });
    function more(n) {
      var end = Math.min(display.length, rendered + n), frag = document.createDocumentFragment();
      for (; rendered < end; rendered++) {
        var d = display[rendered];
        frag.appendChild(makeItem(d, rendered));
        if (d.k !== undefined && expanded.has(d.k)) frag.appendChild(makeDetail(d.k));
      }
      list.appendChild(frag); list.appendChild(sentinel);
      observer.unobserve(sentinel); observer.observe(sentinel);
    }
    function render() {
      build(); list.textContent = ''; rendered = 0; sel = -1;
      if (!display.length) list.appendChild(el('div', 'empty', 'nothing matches'));
      more(CHUNK);
    }
    function nodeAt(pos) {
      while (pos >= rendered && rendered < display.length) more(CHUNK);
      return list.querySelector('[data-pos="' + pos + '"]');
    }
    function select(pos) {
      if (pos < 0 || pos >= display.length) return;
      var old = list.querySelector('.sel'); if (old) old.classList.remove('sel');
      var n = nodeAt(pos); if (!n) return;
      sel = pos; n.classList.add('sel'); n.scrollIntoView({ block: 'nearest' });
    }
    function toggle(pos) {
      var d = display[pos]; if (!d || d.k === undefined) return;
      var row = nodeAt(pos);
      if (expanded.has(d.k)) {
        expanded.delete(d.k);
        var det = row.nextSibling; if (det && det.dataset && det.dataset.detail !== undefined) det.remove();
      } else { expanded.add(d.k); row.after(makeDetail(d.k)); }
      select(pos);
    }
    function nextDifference(dir) {
      for (var p = sel + dir; p >= 0 && p < display.length; p += dir) {
        var d = display[p];
        if (d.k !== undefined && mark(steps[d.k].st) !== 'same') { select(p); return; }
      }
    }
    function jump(dir, oldSeq, newSeq) {
      query = filter.value = ''; only = onlyBox.checked = false; render();
      for (var p = 0; p < display.length; p++) {
        var d = display[p]; if (d.k === undefined) continue;
        var s = steps[d.k], st = s.st;
        if (D.lanes[s.li].dir !== dir) continue;
        var o = st.o >= 0 ? OS.frames[st.o].s : 0, n = st.n >= 0 ? NS.frames[st.n].s : 0;
        if ((oldSeq && o === oldSeq) || (!oldSeq && newSeq && n === newSeq)) { select(p); return; }
      }
    }
    sum.addEventListener('click', function (ev) {
      var c = ev.target.closest('.dchange');
      if (c) jump(c.dataset.dir, Number(c.dataset.old), Number(c.dataset.new));
    });
    list.addEventListener('click', function (ev) {
      if (ev.target.closest('.detail')) return;
      var n = ev.target.closest('[data-pos]'); if (n) toggle(Number(n.dataset.pos));
    });
    var timer = 0;
    filter.addEventListener('input', function () {
      clearTimeout(timer); timer = setTimeout(function () { query = filter.value.trim(); render(); }, 120);
    });
    onlyBox.addEventListener('change', function () { only = onlyBox.checked; render(); });
    nextDiff.addEventListener('click', function () { nextDifference(1); });
    document.addEventListener('keydown', function (ev) {
      if (ev.target === filter) {
        if (ev.key === 'Escape' || ev.key === 'Enter') {
          clearTimeout(timer); query = filter.value.trim(); render(); filter.blur();
          if (display.length) select(0);
          ev.preventDefault();
        }
        return;
      }
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      switch (ev.key) {
        case 'j': case 'ArrowDown': select(sel + 1); break;
        case 'k': case 'ArrowUp': select(Math.max(sel - 1, 0)); break;
        case 'Enter': case 'o': case ' ': if (sel >= 0) toggle(sel); break;
        case '/': filter.focus(); filter.select(); break;
        case 'n': nextDifference(1); break;
        case 'N': nextDifference(-1); break;
        default: return;
      }
      ev.preventDefault();
    });
    render();
    window.codexrecLoadMs = performance.now() - t0;
    document.body.dataset.ready = '1';
  }
})();
