// codexrec pages, recording view (part of the function assembled in html.go).
  // One recording: a two-lane timeline of its frames, grouped by thread and turn.
  function renderRecording() {

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
    if (data.info && data.info.omitted) info.appendChild(el('span', 'omitted', data.info.omitted));

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
  }
