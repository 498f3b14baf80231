// codexrec serve: the page. Every recorded string reaches the DOM through
// textContent (el() below), never as markup; the server's CSP allows no inline code.
(function () {
  'use strict';
  var ROW_H = 22, PAGE = 200;
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function get(url) {
    return fetch(url, { credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { throw new Error(t || r.statusText); });
      return r.json();
    });
  }
  function q(params) {
    var parts = [];
    Object.keys(params).forEach(function (k) {
      if (params[k] !== '' && params[k] !== undefined && params[k] !== null && params[k] !== false)
        parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(params[k]));
    });
    return parts.join('&');
  }
  function fmtT(t) { return (t || 0).toFixed(3) + 's'; }
  function fmtLat(l) { return l >= 1 ? l.toFixed(3) + 's' : (l * 1000).toFixed(1) + 'ms'; }
  var arrows = { c2s: '→', s2c: '←', stderr: '!' };

  // ---- sessions ----
  var sessions = [], byId = {}, ticked = [], current = null;

  function renderSessions() {
    var ul = $('sessions');
    clear(ul);
    $('count').textContent = String(sessions.length);
    sessions.forEach(function (s) {
      var li = el('li', 'sess' + (current && current.id === s.id ? ' current' : '') + (s.live ? ' live' : ''));
      li.dataset.id = s.id;
      li.dataset.frames = String(s.frames);
      var cb = el('input');
      cb.type = 'checkbox';
      cb.checked = ticked.indexOf(s.id) >= 0;
      cb.title = 'tick two sessions to diff them';
      cb.addEventListener('change', function () {
        ticked = ticked.filter(function (x) { return x !== s.id; });
        if (cb.checked) ticked.push(s.id);
        while (ticked.length > 2) ticked.shift();
        renderSessions();
      });
      li.appendChild(cb);
      var name = el('a', 'name', s.name);
      name.href = '#';
      name.addEventListener('click', function (ev) { ev.preventDefault(); openSession(s.id, {}); });
      li.appendChild(name);
      var meta = el('div', 'meta');
      if (s.live) meta.appendChild(el('span', 'badge live', '● live'));
      meta.appendChild(el('span', 'badge', s.frames + ' frames'));
      if (s.counts.Findings) meta.appendChild(el('span', 'badge finding', s.counts.Findings + ' findings'));
      if (s.counts.Redactions) meta.appendChild(el('span', 'badge redaction', s.counts.Redactions + ' redactions'));
      if (s.codexVersion) meta.appendChild(el('span', 'badge', s.codexVersion));
      if (s.transport !== 'stdio') meta.appendChild(el('span', 'badge', s.transport));
      if (s.ended) meta.appendChild(el('span', 'badge', s.ended));
      if (s.error) meta.appendChild(el('span', 'badge err', s.error));
      li.appendChild(meta);
      ul.appendChild(li);
    });
    $('diff-btn').disabled = ticked.length !== 2;
  }

  function renderReports(reports) {
    var ul = $('reports');
    clear(ul);
    $('reports-head').hidden = reports.length === 0;
    reports.forEach(function (r) {
      var li = el('li', 'report');
      var a = el('a', 'name', r.name);
      a.href = '/report?' + q({ id: r.id });
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      li.appendChild(a);
      ul.appendChild(li);
    });
  }

  function onSessions(data) {
    renderReports(data.reports || []);
    var old = byId;
    sessions = data.sessions;
    byId = {};
    sessions.forEach(function (s) { byId[s.id] = s; });
    ticked = ticked.filter(function (id) { return byId[id]; });
    renderSessions();
    document.body.dataset.ready = '1';
    document.body.dataset.version = String(data.version);
    if (current && byId[current.id] && (!old[current.id] || old[current.id].version !== byId[current.id].version)) {
      current.info = byId[current.id];
      renderInfo();
      refreshTail();
    }
  }

  function connect() {
    var es = new EventSource('/api/events');
    es.addEventListener('open', function () { $('conn').textContent = 'live'; $('conn').className = 'conn on'; });
    es.addEventListener('error', function () { $('conn').textContent = 'disconnected, retrying…'; $('conn').className = 'conn off'; });
    es.addEventListener('sessions', function (ev) { onSessions(JSON.parse(ev.data)); });
  }

  // ---- one session: a windowed list of rows the server sends a page at a time ----
  function filters() {
    return {
      dir: $('f-dir').value, method: $('f-method').value.trim(), thread: $('f-thread').value.trim(),
      kind: $('f-kind').value, findings: $('f-findings').checked ? '1' : '', q: $('f-q').value.trim(),
      raw: $('f-raw').checked ? '1' : ''
    };
  }

  function openSession(id, opts) {
    $('diff').hidden = true;
    $('empty').hidden = true;
    $('session').hidden = false;
    ['f-dir', 'f-method', 'f-thread', 'f-kind', 'f-q'].forEach(function (f) { $(f).value = ''; });
    $('f-findings').checked = false;
    if (opts.q) $('f-q').value = opts.q;
    current = { id: id, info: byId[id], pages: {}, pending: {}, matched: 0, gen: 0, selected: opts.select || 0 };
    renderSessions();
    renderInfo();
    clear($('detail'));
    clear($('rows'));
    $('matched').textContent = '';
    $('spacer').style.height = '0px';
    reload(opts.select);
  }

  function renderInfo() {
    var s = current.info;
    if (!s) return;
    var info = $('info');
    clear(info);
    info.appendChild(el('h2', null, s.name));
    var parts = [];
    if (s.codexVersion) parts.push('codex ' + s.codexVersion);
    if (s.scenario) parts.push('scenario ' + s.scenario);
    if (s.started) parts.push('started ' + s.started);
    parts.push(s.transport);
    parts.push('c2s ' + s.counts.C2S + ' · s2c ' + s.counts.S2C + ' · stderr ' + s.counts.Stderr);
    if (s.counts.Findings) parts.push(s.counts.Findings + ' findings');
    if (s.counts.Redactions) parts.push(s.counts.Redactions + ' redactions');
    parts.push(s.live ? 'recording…' : (s.ended ? 'ended ' + s.ended + (s.exitCode !== undefined ? ', exit ' + s.exitCode : '') : 'no trailer'));
    parts.push(fmtT(s.duration));
    info.appendChild(el('div', 'sub', parts.join('  ·  ')));
    if (s.command) info.appendChild(el('div', 'sub cmd', s.command));
    if (s.error) info.appendChild(el('div', 'sub err', s.error));
    $('download').href = '/api/download?' + q({ id: s.id });
    $('download').setAttribute('download', s.name.split('/').pop());
    $('replay').value = s.replay;
  }

  function reload(selectSeq) {
    current.gen++;
    current.pages = {};
    current.pending = {};
    current.matched = 0;
    var f = filters();
    var gen = current.gen;
    var params = Object.assign({ id: current.id, from: 0, limit: PAGE }, f);
    if (selectSeq) params.at = selectSeq;
    get('/api/frames?' + q(params)).then(function (d) {
      if (gen !== current.gen) return;
      takePage(0, d);
      var list = $('list');
      if (selectSeq && d.at >= 0) {
        list.scrollTop = Math.max(0, d.at * ROW_H - list.clientHeight / 2);
        select(selectSeq, d.at);
      } else if ($('f-follow').checked && byId[current.id] && byId[current.id].live) {
        list.scrollTop = list.scrollHeight;
      } else {
        list.scrollTop = 0;
      }
      render();
    }).catch(showError);
  }

  function takePage(p, d) {
    current.pages[p] = d.frames;
    current.matched = d.matched;
    $('spacer').style.height = (d.matched * ROW_H) + 'px';
    $('matched').textContent = d.matched + ' of ' + d.total + ' rows';
  }

  function fetchPage(p) {
    if (current.pages[p] || current.pending[p]) return;
    current.pending[p] = true;
    var gen = current.gen;
    get('/api/frames?' + q(Object.assign({ id: current.id, from: p * PAGE, limit: PAGE }, filters()))).then(function (d) {
      if (gen !== current.gen) return;
      delete current.pending[p];
      takePage(p, d);
      render();
    }).catch(showError);
  }

  // refreshTail re-reads the last pages after the session grew: new rows, and
  // requests whose responses have arrived since.
  function refreshTail() {
    var list = $('list');
    var atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 2 * ROW_H;
    var from = Math.floor(Math.max(0, current.matched - 100) / PAGE);
    var gen = current.gen;
    Object.keys(current.pages).forEach(function (k) { if (+k >= from) delete current.pages[k]; });
    get('/api/frames?' + q(Object.assign({ id: current.id, from: from * PAGE, limit: PAGE }, filters()))).then(function (d) {
      if (gen !== current.gen) return;
      takePage(from, d);
      if ($('f-follow').checked && atBottom) list.scrollTop = list.scrollHeight;
      render();
    }).catch(showError);
  }

  function rowAt(i) {
    var p = current.pages[Math.floor(i / PAGE)];
    return p ? p[i % PAGE] : undefined;
  }

  function render() {
    if (!current) return;
    var list = $('list'), rows = $('rows');
    var first = Math.max(0, Math.floor(list.scrollTop / ROW_H) - 20);
    var last = Math.min(current.matched, Math.ceil((list.scrollTop + list.clientHeight) / ROW_H) + 20);
    rows.style.top = (first * ROW_H) + 'px';
    clear(rows);
    var prev = first > 0 ? rowAt(first - 1) : null;
    for (var i = first; i < last; i++) {
      var f = rowAt(i);
      if (!f) {
        fetchPage(Math.floor(i / PAGE));
        rows.appendChild(el('div', 'row loading', '…'));
        prev = null;
        continue;
      }
      rows.appendChild(rowEl(f, prev));
      prev = f;
    }
  }

  function rowEl(f, prev) {
    var r = el('div', 'row');
    if (f.e) {
      r.className = 'row event';
      r.appendChild(el('span', 't', fmtT(f.t)));
      r.appendChild(el('span', 'u', '── ' + f.e));
      return r;
    }
    r.dataset.seq = String(f.s);
    r.classList.add(f.d);
    if (current.selected === f.s) r.classList.add('sel');
    if (prev && !prev.e && (prev.th !== f.th || prev.tu !== f.tu) && f.th) r.classList.add('group');
    r.appendChild(el('span', 't', fmtT(f.t)));
    r.appendChild(el('span', 'seq', '#' + f.s));
    r.appendChild(el('span', 'dir', arrows[f.d] || '?'));
    r.appendChild(el('span', 'k', f.k || 'stderr'));
    var m = el('span', 'm', (f.m || '') + (f.id ? ' [' + f.id + ']' : ''));
    r.appendChild(m);
    if (f.th) r.appendChild(el('span', 'turn', (f.th || '').slice(0, 8) + (f.tu ? '·' + f.tu.slice(0, 8) : '')));
    if (f.p) {
      var pair = el('a', 'pair', (f.k === 'request' ? '→ #' : '↩ #') + f.p + (f.l && f.k !== 'request' ? ' ' + fmtLat(f.l) : ''));
      pair.href = '#';
      pair.addEventListener('click', function (ev) { ev.preventDefault(); ev.stopPropagation(); jumpTo(f.p); });
      r.appendChild(pair);
    }
    (f.n || []).forEach(function (n) {
      r.appendChild(el('span', 'badge ' + n.type, (n.type === 'redaction' ? '✂ ' : '⚑ ') + (n.rule || n.type)));
    });
    r.appendChild(el('span', 'u', f.r !== undefined && f.r !== '' ? f.r : (f.u || '')));
    r.addEventListener('click', function () { select(f.s, f.i); });
    return r;
  }

  function jumpTo(seq) {
    var gen = current.gen;
    get('/api/frames?' + q(Object.assign({ id: current.id, from: 0, limit: 1, at: seq }, filters()))).then(function (d) {
      if (gen !== current.gen) return;
      if (d.at < 0) {
        // Hidden by the filters: show it anyway, without them.
        openSession(current.id, { select: seq });
        return;
      }
      var list = $('list');
      list.scrollTop = Math.max(0, d.at * ROW_H - list.clientHeight / 2);
      select(seq, d.at);
      render();
    }).catch(showError);
  }

  function select(seq, index) {
    current.selected = seq;
    if (index !== undefined) current.selectedIndex = index;
    render();
    var d = $('detail');
    get('/api/frame?' + q({ id: current.id, seq: seq })).then(function (x) {
      if (current.selected !== seq) return;
      clear(d);
      var f = x.frame;
      var head = el('div', 'dhead', '#' + f.s + '  ' + (arrows[f.d] || '') + ' ' + (f.k || 'stderr') + '  ' + (f.m || '') +
        (f.id ? ' [' + f.id + ']' : '') + '  at ' + fmtT(f.t) + '  ' + x.size + ' bytes');
      d.appendChild(head);
      if (f.th) d.appendChild(el('div', 'sub', 'thread ' + f.th + (f.tu ? ' · turn ' + f.tu : '') + (f.it ? ' · item ' + f.it : '')));
      if (f.p) {
        var a = el('a', 'pair', (f.k === 'request' ? 'answered by #' : 'answers #') + f.p + (f.l ? ' after ' + fmtLat(f.l) : ''));
        a.href = '#';
        a.addEventListener('click', function (ev) { ev.preventDefault(); jumpTo(f.p); });
        d.appendChild(a);
      }
      (f.n || []).forEach(function (n) {
        d.appendChild(el('div', 'note ' + n.type, n.type + ' ' + (n.severity || '') + ' ' + (n.rule || '') + ' ' +
          (n.pointer || '') + ' ' + (n.reason || '') + ' ' + (n.detail || '')));
      });
      d.appendChild(el('pre', 'json', x.pretty !== undefined ? x.pretty : x.content));
      if (x.clipped) d.appendChild(el('div', 'sub', 'clipped at 1 MiB: download the recording for the whole frame'));
    }).catch(showError);
  }

  function showError(e) {
    $('conn').textContent = 'error: ' + (e && e.message ? e.message : e);
    $('conn').className = 'conn off';
  }

  // move selects the next (+1) or previous (-1) frame row among those loaded, and
  // keeps it in view.
  function move(step) {
    if (!current || current.selectedIndex === undefined) {
      if (current && current.matched) {
        var first = rowAt(0);
        if (first && !first.e) select(first.s, 0);
      }
      return;
    }
    for (var i = current.selectedIndex + step; i >= 0 && i < current.matched; i += step) {
      var f = rowAt(i);
      if (!f) return; // not loaded yet: scrolling fetches it
      if (f.e) continue;
      var list = $('list');
      if (i * ROW_H < list.scrollTop) list.scrollTop = i * ROW_H;
      else if ((i + 1) * ROW_H > list.scrollTop + list.clientHeight) list.scrollTop = (i + 1) * ROW_H - list.clientHeight;
      select(f.s, i);
      return;
    }
  }

  // ---- search across sessions ----
  function search(text) {
    get('/api/search?' + q({ q: text })).then(function (d) {
      $('results').hidden = false;
      $('results-title').textContent = d.hits.length + (d.more ? '+' : '') + ' frames hold “' + text + '”';
      var ul = $('hits');
      clear(ul);
      d.hits.forEach(function (h) {
        var li = el('li', 'hit');
        li.dataset.id = h.id;
        li.dataset.seq = String(h.s);
        li.appendChild(el('div', 'where', h.name + '  #' + h.s + ' ' + (arrows[h.d] || '') + ' ' + (h.m || '')));
        li.appendChild(el('div', 'snip', h.x));
        li.addEventListener('click', function () { openSession(h.id, { q: text, select: h.s }); });
        ul.appendChild(li);
      });
    }).catch(showError);
  }

  // ---- diff of two sessions ----
  function showDiff(a, b) {
    $('session').hidden = true;
    $('empty').hidden = true;
    $('diff').hidden = false;
    current = null;
    $('diff-title').textContent = 'diff ' + byId[a].name + '  →  ' + byId[b].name;
    $('diff-report').textContent = 'comparing…';
    clear($('diff-lanes'));
    get('/api/diff?' + q({ a: a, b: b })).then(function (d) {
      $('diff-report').textContent = d.report;
      var lanes = $('diff-lanes');
      d.lanes.forEach(function (l) {
        lanes.appendChild(el('h3', null, l.dir === 'c2s' ? 'client → server' : 'server → client'));
        var t = el('table', 'steps');
        l.steps.forEach(function (s) {
          var tr = el('tr', 'step mk' + { '=': 'same', '~': 'changed', '+': 'added', '-': 'removed', '>': 'moved' }[s.mk]);
          tr.appendChild(el('td', 'mk', s.mk));
          [s.o, s.n].forEach(function (side) {
            tr.appendChild(el('td', 'side', side ? '#' + side.s + ' ' + side.k + ' ' + (side.m || '') + '  ' + (side.u || '') : ''));
          });
          t.appendChild(tr);
          (s.c || []).forEach(function (c) {
            var cr = el('tr', 'change');
            cr.appendChild(el('td'));
            var td = el('td', null, c);
            td.colSpan = 2;
            cr.appendChild(td);
            t.appendChild(cr);
          });
        });
        lanes.appendChild(t);
      });
    }).catch(function (e) { $('diff-report').textContent = 'diff failed: ' + e.message; });
  }

  // ---- wiring ----
  function debounce(f, ms) {
    var t = null;
    return function () { clearTimeout(t); t = setTimeout(f, ms); };
  }
  document.addEventListener('DOMContentLoaded', function () {
    $('list').addEventListener('scroll', function () { render(); });
    window.addEventListener('resize', function () { render(); });
    var refilter = debounce(function () { if (current) { clear($('detail')); reload(0); } }, 200);
    ['f-dir', 'f-kind', 'f-findings', 'f-raw'].forEach(function (id) { $(id).addEventListener('change', refilter); });
    ['f-method', 'f-thread', 'f-q'].forEach(function (id) { $(id).addEventListener('input', refilter); });
    $('search').addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter' && $('search').value.trim()) search($('search').value.trim());
    });
    $('results-close').addEventListener('click', function () { $('results').hidden = true; });
    $('diff-btn').addEventListener('click', function () { if (ticked.length === 2) showDiff(ticked[0], ticked[1]); });
    $('diff-close').addEventListener('click', function () { $('diff').hidden = true; $('empty').hidden = false; });
    $('copy').addEventListener('click', function () {
      var text = $('replay').value;
      var done = function () { $('copied').textContent = 'copied'; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () { $('replay').select(); document.execCommand('copy'); done(); });
      } else {
        $('replay').select();
        document.execCommand('copy');
        done();
      }
    });
    document.addEventListener('keydown', function (ev) {
      var tag = ev.target && ev.target.tagName;
      if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') {
        if (ev.key === 'Escape') ev.target.blur();
        return;
      }
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      switch (ev.key) {
        case 'j': case 'ArrowDown': move(1); break;
        case 'k': case 'ArrowUp': move(-1); break;
        case '/': $('f-q').focus(); break;
        case 's': $('search').focus(); break;
        case 'p':
          if (current && current.selectedIndex !== undefined) {
            var sel = rowAt(current.selectedIndex);
            if (sel && sel.p) jumpTo(sel.p);
          }
          break;
        default: return;
      }
      ev.preventDefault();
    });
    connect();
  });
})();
