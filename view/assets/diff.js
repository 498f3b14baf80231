// codexrec pages, diff view (part of the function assembled in html.go).
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
        ' (' + d.changed + ' changed), added ' + d.added + ', removed ' + d.removed + (d.moved ? ', moved ' + d.moved : '')));
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
    function mark(st) { return st.mv ? 'mov' : st.o < 0 ? 'add' : st.n < 0 ? 'del' : (st.c && st.c.length ? 'chg' : 'same'); }
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
    var marks = { same: '=', chg: '~', add: '+', del: '−', mov: '↕' };
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
      if (m === 'mov') {
        row.appendChild(el('div', 'dchanges', 'moved: equal to ' + (st.o < 0 ? 'old' : 'new') + ' #' + st.mv));
      }
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
