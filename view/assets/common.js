// codexrec pages, shared part: reads the JSON data block of this page. Recorded content
// is only ever assigned with textContent, never parsed as markup. Rows are built lazily,
// a chunk at a time as the list scrolls, so large recordings open quickly.
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

  if (data.mode === 'diff') renderDiff(); else renderRecording();
