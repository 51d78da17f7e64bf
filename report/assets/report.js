/* stackdump report: draws the page from the JSON in #report-data.
   Plain DOM and SVG, no libraries, no network. Text from the dump is only
   ever set with textContent or setAttribute, never parsed as HTML. */
(function () {
  'use strict';

  var t0 = performance.now();
  var doc = document, root = doc.documentElement;
  var D = JSON.parse(doc.getElementById('report-data').textContent);
  var S = D.strings, F = D.frames;

  var FL_RUNTIME = 1, FL_INLINED = 2, FL_NATIVE = 4, FL_STD = 8;
  var PAGE = 100;              // groups rendered per "show more"
  var MAX_FLAME_NODES = 5000;  // rectangles drawn at most
  var FLAME_ROW = 18;
  var SVGNS = 'http://www.w3.org/2000/svg';
  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948',
    '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
  var FIELDS = { func: 1, pkg: 1, file: 1, state: 1, label: 1, name: 1, creator: 1, id: 1, key: 1 };

  var view = {
    dump: 0,       // the input shown: the first, as the dump picker opens
    filter: '',
    terms: [],
    visible: [],   // indexes of the groups that pass the filter, largest first
    routines: 0,   // their members
    shown: 0,      // how many of visible are rendered in the list
    zoom: [],      // flame graph zoom: frame indexes from the root down
    tree: null     // flame graph of the visible groups
  };
  var lastHash = '';

  // ---- small helpers ----

  function $(id) { return doc.getElementById(id); }

  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (c == null) continue;
      parent.appendChild(typeof c === 'string' ? doc.createTextNode(c) : c);
    }
    return parent;
  }

  function svg(tag, attrs, text) {
    var e = doc.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }

  function num(n) { return Number(n).toLocaleString('en-US'); }

  function percent(n, total) {
    if (!total) return '';
    var p = 100 * n / total;
    return (p >= 10 || p === 0 ? p.toFixed(0) : p < 0.1 ? '<0.1' : p.toFixed(1)) + '%';
  }

  function plural(n, one, many) { return num(n) + ' ' + (n === 1 ? one : many); }

  function hash32(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }

  function clipText(s, px, charPx) {
    var n = Math.floor(px / charPx);
    if (s.length <= n) return s;
    return n < 2 ? '' : s.slice(0, n - 1) + '…';
  }

  // ---- frames ----

  function fFunc(i) { return S[F[i][0]]; }
  function fFile(i) { return S[F[i][1]]; }
  function fLine(i) { return F[i][2]; }
  function fFlags(i) { return F[i][3]; }
  function fPkg(i) { return S[F[i][4]]; }
  function fModule(i) { return F[i].length > 5 ? S[F[i][5]] : ''; }

  function baseName(p) { return p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1); }

  function fWhere(i, full) {
    var f = fFile(i), l = fLine(i);
    if (!f) return fModule(i) || (fFlags(i) & FL_NATIVE ? 'native' : '');
    return (full ? f : baseName(f)) + (l ? ':' + l : '');
  }

  // hiddenClass drops the address of a JVM hidden class, so that a lambda
  // names its class: "Foo$$Lambda$14/0x0000000800c03000.run" →
  // "Foo$$Lambda$14.run" (as analyze.JVMHiddenClass). Go names, which hold
  // no '$' before a slash, are left alone.
  var HIDDEN = /^([^\/]*\$[^\/]*)\/(?:0x)?[0-9a-fA-F]+(\..*)$/;
  function hiddenClass(s) {
    var m = HIDDEN.exec(s);
    return m ? m[1] + m[2] : s;
  }

  // shortFunc drops the import path: "net/http.(*conn).serve" → "http.(*conn).serve".
  function shortFunc(s) {
    s = hiddenClass(s);
    var b = s.indexOf('[');
    var j = s.lastIndexOf('/', b < 0 ? s.length : b);
    return s.slice(j + 1);
  }

  // shortName is a frame's function without its package path: the Go form
  // above, or "LockSupport.park" for "java.util.concurrent.locks.LockSupport.park".
  function shortName(fi) {
    var fn = fFunc(fi), pkg = fPkg(fi);
    if (pkg && pkg.indexOf('/') < 0 && pkg.indexOf('.') > 0 && fn.indexOf(pkg + '.') === 0) return hiddenClass(fn.slice(pkg.length + 1));
    return shortFunc(fn);
  }


  function frameColor(fi) {
    var fl = fFlags(fi), h = hash32(fPkg(fi) || fFunc(fi));
    if (fl & FL_RUNTIME) return 'hsl(0,0%,' + (70 + h % 12) + '%)';
    if (fl & FL_STD) return 'hsl(' + (185 + h % 45) + ',50%,' + (66 + h % 12) + '%)';
    return 'hsl(' + (8 + h % 42) + ',82%,' + (58 + h % 14) + '%)';
  }

  // ---- the data of one dump ----

  function prepare(inp) {
    if (inp.ready) return inp;
    var gs = inp.groups, states = {};
    inp.byKey = {};
    for (var i = 0; i < gs.length; i++) {
      var g = gs[i], k;
      g.index = i;
      g.children = [];
      // The group's name, by the rule of every table (dedupe.PlaceOf,
      // made by the writer): the program's code past the platform's
      // waiting primitives, and the primitive under it as detail.
      g.top = g.place != null ? g.place : -1;
      g.prim = g.placeWait != null ? g.placeWait : -1;
      inp.byKey[g.key] = i;
      var funcs = [], pkgs = [], files = [], st = [], labels = [];
      for (k = 0; k < g.stack.length; k++) {
        funcs.push(fFunc(g.stack[k]));
        pkgs.push(fPkg(g.stack[k]));
        files.push(fFile(g.stack[k]));
      }
      (g.states || []).forEach(function (s) {
        st.push(s.s);
        states[s.s] = (states[s.s] || 0) + s.n;
      });
      (g.labels || []).forEach(function (l) {
        labels.push(l.set.map(function (kv) { return kv[0] + '=' + kv[1]; }).join(' '));
      });
      var creator = g.creator != null ? fFunc(g.creator) : '';
      g.hay = {
        func: funcs.join('\n').toLowerCase(),
        pkg: pkgs.join('\n').toLowerCase(),
        file: files.join('\n').toLowerCase(),
        state: st.join('\n').toLowerCase(),
        label: labels.join('\n').toLowerCase(),
        name: (g.name || '').toLowerCase(),
        creator: creator.toLowerCase(),
        key: g.key.toLowerCase()
      };
      g.hay.all = [g.hay.func, g.hay.state, g.hay.label, g.hay.name, g.hay.creator].join('\n');
    }
    gs.forEach(function (g, i) {
      (g.parentGroups || []).concat(g.creatorGroups || []).forEach(function (p) {
        if (gs[p] && gs[p].children.indexOf(i) < 0) gs[p].children.push(i);
      });
    });
    (inp.omittedStates || []).forEach(function (s) { states[s.s] = (states[s.s] || 0) + s.n; });
    inp.states = Object.keys(states).map(function (s) { return [s, states[s]]; })
      .sort(function (a, b) { return b[1] - a[1] || (a[0] < b[0] ? -1 : 1); });
    inp.ready = true;
    return inp;
  }

  function cur() { return prepare(D.inputs[view.dump]); }

  // ---- filtering ----

  // parseFilter splits "net/http state:\"chan receive\" -runtime" into terms.
  function parseFilter(s) {
    var terms = [], re = /(-?)(?:([A-Za-z]+):)?(?:"([^"]*)"?|(\S+))/g, m;
    while ((m = re.exec(s)) !== null) {
      if (m[0] === '') { re.lastIndex++; continue; }
      var field = (m[2] || '').toLowerCase();
      var value = m[3] != null ? m[3] : (m[4] || '');
      if (field && !FIELDS[field]) { value = m[2] + ':' + value; field = ''; }
      if (value === '') continue;
      terms.push({ neg: m[1] === '-', field: field, value: value.toLowerCase() });
    }
    return terms;
  }

  function matches(g, terms) {
    for (var i = 0; i < terms.length; i++) {
      var t = terms[i], hit;
      if (t.field === 'id') {
        hit = (g.ids || []).indexOf(Number(t.value)) >= 0;
      } else if (t.field === 'key') {
        hit = g.hay.key.indexOf(t.value) === 0;
      } else {
        hit = (t.field ? g.hay[t.field] : g.hay.all).indexOf(t.value) >= 0;
      }
      if (hit === t.neg) return false;
    }
    return true;
  }

  function computeVisible() {
    var inp = cur(), vis = [], n = 0;
    for (var i = 0; i < inp.groups.length; i++) {
      var g = inp.groups[i];
      if (!view.terms.length || matches(g, view.terms)) { vis.push(i); n += g.count; }
    }
    view.visible = vis;
    view.routines = n;
  }

  function setFilter(text, opts) {
    view.filter = text;
    view.terms = parseFilter(text);
    var box = $('filter');
    if (box.value !== text) box.value = text;
    refresh();
    if (!opts || opts.hash !== false) writeHash(false);
  }

  function refresh() {
    computeVisible();
    renderCount();
    renderStates();
    view.tree = null;
    renderFlame();
    renderGroups(true);
  }

  function renderCount() {
    var inp = cur(), c = $('count'), groups = inp.groups.length;
    var total = groups ? inp.groups.reduce(function (a, g) { return a + g.count; }, 0) : 0;
    c.setAttribute('data-visible-groups', String(view.visible.length));
    c.setAttribute('data-visible-routines', String(view.routines));
    c.setAttribute('data-total-groups', String(groups));
    if (view.terms.length) {
      c.textContent = num(view.visible.length) + ' of ' + plural(groups, 'group', 'groups') + ' · ' +
        num(view.routines) + ' of ' + num(total) + ' ' + inp.noun;
      c.className = view.visible.length ? 'filtered' : 'filtered none';
    } else {
      c.textContent = plural(groups, 'group', 'groups') + ' · ' + num(total) + ' ' + inp.noun;
      c.className = '';
    }
  }

  // ---- the address: #filter=…&dump=N&group=KEY ----

  function readHash() {
    var h = location.hash.replace(/^#/, ''), out = {};
    if (!h) return out;
    h.split('&').forEach(function (kv) {
      var i = kv.indexOf('='), k = i < 0 ? kv : kv.slice(0, i), v = i < 0 ? '' : kv.slice(i + 1);
      try { out[decodeURIComponent(k)] = decodeURIComponent(v.replace(/\+/g, ' ')); } catch (e) { /* not ours */ }
    });
    return out;
  }

  function writeHash(push, group) {
    var parts = [];
    if (view.filter) parts.push('filter=' + encodeURIComponent(view.filter));
    if (D.inputs.length > 1) parts.push('dump=' + view.dump);
    if (group) parts.push('group=' + encodeURIComponent(group));
    var h = parts.length ? '#' + parts.join('&') : '';
    if (h === lastHash) return;
    lastHash = h;
    var url = location.href.replace(/#.*$/, '') + h;
    try {
      if (push) history.pushState(null, '', url); else history.replaceState(null, '', url);
    } catch (e) {
      // Some browsers refuse history changes on file:// pages; the view still works.
    }
  }

  function applyHash() {
    var h = readHash();
    lastHash = location.hash;
    var d = h.dump != null ? parseInt(h.dump, 10) : view.dump;
    if (!(d >= 0 && d < D.inputs.length)) d = view.dump;
    var changed = d !== view.dump;
    view.dump = d;
    $('dump-select').value = String(d);
    var f = h.filter || '';
    view.filter = f;
    view.terms = parseFilter(f);
    $('filter').value = f;
    if (changed) { view.zoom = []; renderSummary(); renderLocks(); renderTimeline(); }
    refresh();
    if (h.group) {
      var gi = cur().byKey[h.group];
      if (gi != null) goToGroup(gi, false);
    }
  }

  // ---- summary ----

  function fact(dl, name, value) {
    if (value == null || value === '') return null;
    var dd = typeof value === 'string' ? el('dd', null, value) : add(el('dd'), value);
    add(dl, el('dt', null, name), dd);
    return dd;
  }

  function card(big, small, title) {
    var c = el('div', 'card');
    if (title) c.title = title;
    return add(c, el('div', 'big', big), el('div', 'small', small));
  }

  function renderSummary() {
    var inp = cur(), box = $('summary');
    box.textContent = '';
    if (inp.crash) box.appendChild(crashBanner(inp.crash));
    if (inp.locks && (inp.locks.deadlocks.length || inp.locks.reported)) box.appendChild(deadlockBanner(inp.locks));
    if (inp.racesTotal) box.appendChild(racesBanner(inp));
    if (inp.analyzed) box.appendChild(findingsBox('Findings', 'verdicts with their evidence, most alarming first, as stackdump analyze makes them', inp.findings || [], inp.clear, 'dump'));
    if (D.seriesAnalyzed) {
      box.appendChild(findingsBox('Across the ' + num(D.inputs.length) + ' dumps', 'as snapshots of one process, in the order given (stackdump timeline): what did not move, what grew', D.seriesFindings || [], null, 'series'));
    }
    var groups = inp.groups;
    var cards = el('div', 'cards');
    add(cards, card(num(inp.total), inp.total === 1 ? inp.noun.replace(/s$/, '') : inp.noun, 'goroutines or threads in the dump'));
    add(cards, card(num(groups.length + (inp.groupsOmitted || 0)), 'groups', 'distinct stacks after grouping'));
    if (inp.states.length) {
      add(cards, card(percent(inp.states[0][1], inp.total), inp.states[0][0], num(inp.states[0][1]) + ' ' + inp.noun + ' in the most common state'));
    }
    if (groups.length) {
      var g0 = groups[0];
      add(cards, card(percent(g0.count, inp.total), 'in the largest group', num(g0.count) + ' ' + inp.noun + ' at ' + (g0.top >= 0 ? fFunc(g0.top) : 'no frame')));
    }
    box.appendChild(cards);

    var dl = el('dl', 'facts');
    fact(dl, 'dump', inp.name);
    fact(dl, 'format', inp.kind);
    fact(dl, 'runtime', inp.runtime);
    if (inp.target && inp.target !== inp.name) fact(dl, 'target', inp.target);
    fact(dl, 'captured', inp.capturedAt);
    if (inp.capture) {
      // What the capture really was: the fetches that made it say so
      // (a trace snapshot taken under a full capture's pause budget is
      // not called full), then what it holds and what it cost.
      var c = inp.capture, bits = [];
      bits.push(c.what || c.mode || 'capture');
      if (c.methods && c.methods.length) bits.push('from ' + c.methods.join(' + '));
      if (c.goroutines) bits.push(num(c.goroutines) + ' goroutines');
      if (c.duration) bits.push('took ' + c.duration);
      if (c.pause) bits.push('paused the process ' + c.pause + (c.pauses ? ' in ' + plural(c.pauses, 'pause', 'pauses') : '') + ', as it measured');
      else if (c.observed) bits.push('paused the process at most ' + c.observed + ' (the traceback\'s answer wait)' + (c.predicted ? ', ≈' + c.predicted + ' predicted' : ''));
      else if (c.predicted) bits.push('pause ≈' + c.predicted + ' predicted');
      var cap = fact(dl, 'capture', bits.join(', '));
      if (cap) cap.setAttribute('data-capture', c.what || c.mode || '');
      if (c.holds) fact(dl, 'it holds', c.holds);
      if (c.instead) fact(dl, 'instead', c.instead);
      if (c.missing && c.missing.length) fact(dl, 'not recorded', c.missing.join(', '));
    }
    if (D.generated) fact(dl, 'report made', D.generated);
    box.appendChild(dl);

    if (inp.truncated) {
      box.appendChild(el('p', 'banner bad', /^jvm/.test(inp.kind || '') ?
        'This dump is truncated: it ends in the middle of a thread. Threads past the cut are missing.' :
        'This dump is truncated: it ends in the middle of a stack, or is exactly 64 MiB, the size at which the Go runtime silently cuts debug=2 dumps. Goroutines past the cut are missing.'));
    }
    if (inp.groupsOmitted) {
      box.appendChild(el('p', 'banner', 'The page lists the ' + num(groups.length) + ' largest groups; ' +
        plural(inp.groupsOmitted, 'smaller group', 'smaller groups') + ' with ' + num(inp.routinesOmitted) + ' ' + inp.noun + ' are left out.'));
    }
    var warns = inp.warnings || [];
    if (warns.length) {
      var det = el('details', 'warnings');
      var n = warns.length + (inp.warningsMore || 0);
      add(det, el('summary', 'banner warn', plural(n, 'warning', 'warnings') + ' while reading: lines skipped or not understood'));
      var ul = el('ul');
      warns.forEach(function (w) {
        var li = el('li');
        add(li, el('span', 'where', w.line ? 'line ' + w.line : 'offset ' + w.offset), ' ', w.msg);
        if (w.text) add(li, ' ', el('code', null, w.text));
        ul.appendChild(li);
      });
      if (inp.warningsMore) ul.appendChild(el('li', 'dim', '… and ' + num(inp.warningsMore) + ' more'));
      det.appendChild(ul);
      box.appendChild(det);
    }
    if (inp.preamble && inp.preamble.length) {
      if (inp.locks && inp.locks.deadlocks.length) {
        // The JVM's own deadlock report: the banner above and the Locks
        // section show it, so its text is folded.
        var pd = el('details', 'preamble-box');
        add(pd, el('summary', null, 'Preamble: the JVM\'s deadlock report as printed (' + plural(inp.preamble.length, 'line', 'lines') + ')'), el('pre', 'preamble', inp.preamble.join('\n')));
        box.appendChild(pd);
      } else {
        add(box, el('h3', null, 'Preamble'), el('pre', 'preamble', inp.preamble.join('\n')));
      }
    }
  }

  // ---- findings ----

  // findingLabel is a finding's kind as a heading: "LIKELY LEAK".
  function findingLabel(k) { return k.replace(/-/g, ' ').toUpperCase(); }

  // findingBad is true for the kinds shown in red (those that harm:
  // deadlocks, leaks, blocked and stuck routines); contention, growth and
  // suspects are warnings.
  function findingBad(k) { return k !== 'contention' && k !== 'growth' && k !== 'leak-suspect'; }

  // groupOfID is the index of the group of the dump shown that lists
  // routine id; -1 when none does.
  function groupOfID(id) {
    var inp = cur();
    if (!inp.byID) {
      inp.byID = {};
      inp.groups.forEach(function (g, gi) { (g.ids || []).forEach(function (i) { if (!(i in inp.byID)) inp.byID[i] = gi; }); });
    }
    return id && id in inp.byID ? inp.byID[id] : -1;
  }

  // findingGroups are the groups of the dump shown that a finding is
  // about: its group by key, else the groups of its routines' ids.
  function findingGroups(sub) {
    var inp = cur(), out = [];
    function push(gi) { if (gi >= 0 && out.indexOf(gi) < 0) out.push(gi); }
    if (sub.group && inp.byKey[sub.group] != null) push(inp.byKey[sub.group]);
    if (!out.length) (sub.ids || []).slice(0, 20).forEach(function (id) { push(groupOfID(id)); });
    return out;
  }

  // routineText is a routine of a finding ("goroutine 7 (sync.Mutex.Lock,
  // in main.transfer)"), linked to its group when the page lists it.
  function routineText(r) {
    var who = r.name ? '"' + r.name + '"' : 'goroutine ' + r.id, at = [];
    if (r.state) at.push(r.state);
    if (r.frame) at.push('in ' + r.frame.func);
    if (at.length) who += ' (' + at.join(', ') + ')';
    var gi = r.id ? groupOfID(r.id) : -1;
    return gi >= 0 ? groupLink(gi, who) : el('span', 'who', who);
  }

  function frameText(f) {
    if (!f) return '';
    return f.func + (f.file ? ' ' + f.file.replace(/^.*[\\/]/, '') + (f.line ? ':' + f.line : '') : '');
  }

  // findingItem shows one finding as analyze's text does: its kind,
  // confidence and claim; what it is about (a cycle's steps, where, the
  // lock and its holder, the routines, linked to their groups); each
  // piece of evidence; and what would settle it.
  function findingItem(f) {
    var div = el('div', 'finding ' + (findingBad(f.kind) ? 'bad' : 'warn'));
    div.setAttribute('data-finding-kind', f.kind);
    div.setAttribute('data-confidence', f.confidence);
    add(div, add(el('p', 'claim'), el('strong', 'fkind', findingLabel(f.kind)), ' ', chip('conf', f.confidence, 'how sure: certain (proved), likely (evidence across snapshots or several pieces), possible (what one snapshot shows)'), ' ', el('span', 'text', f.claim)));
    var sub = f.subject || {};
    if (sub.cycle && sub.cycle.length) {
      var ol = el('ol', 'cycle');
      sub.cycle.forEach(function (c) {
        var li = el('li', 'step');
        add(li, routineText(c.routine), ' waits for ', el('code', 'lock', c.waits_for));
        if (c.held_by) add(li, el('span', 'dim', '; the next holds it: ' + c.held_by));
        ol.appendChild(li);
      });
      div.appendChild(ol);
    } else {
      var p = el('p', 'subject dim'), bits = [];
      if (sub.state) bits.push(sub.state);
      if (sub.wait_max) bits.push('up to ' + sub.wait_max + ' min');
      if (sub.frame) bits.push(frameText(sub.frame) + (sub.wait ? ' in ' + sub.wait.func : ''));
      if (sub.lock) bits.push('on ' + sub.lock);
      if (sub.names && sub.names.length) bits.push(sub.names.slice(0, 5).map(function (n) { return '"' + n + '"'; }).join(' ') + (sub.names.length > 5 || sub.names.length < sub.count ? ' …' : ''));
      add(p, bits.join(' · '));
      var gs = findingGroups(sub);
      if (gs.length) {
        add(p, ' · ');
        gs.slice(0, 5).forEach(function (gi, i) { if (i) add(p, ', '); p.appendChild(groupLink(gi)); });
        if (gs.length > 5) add(p, ' and ' + num(gs.length - 5) + ' more groups');
      }
      div.appendChild(p);
      if (sub.holder) add(div, add(el('p', 'holder'), 'held by ', routineText(sub.holder)));
    }
    var ul = el('ul', 'evidence');
    (f.evidence || []).forEach(function (e) {
      var li = el('li', null, e.text);
      li.setAttribute('data-evidence-kind', e.kind);
      ul.appendChild(li);
    });
    div.appendChild(ul);
    if (f.would_prove) div.appendChild(el('p', 'would dim', 'would prove: ' + f.would_prove));
    return div;
  }

  // findingsBox is a heading and its findings, with the checks that found
  // nothing ("✓ no deadlock, no leaks") so that silence is not read as
  // "not looked".
  function findingsBox(title, note, fs, clear, what) {
    var box = el('div', 'findings');
    box.setAttribute('data-findings', what);
    box.setAttribute('data-count', String(fs.length));
    add(box, add(el('h3'), title + ' ', el('small', null, note)));
    fs.forEach(function (f) { box.appendChild(findingItem(f)); });
    if (!fs.length && what === 'series') box.appendChild(el('p', 'clear', '✓ nothing stuck, deadlocked or growing across the dumps'));
    if (clear && clear.length) box.appendChild(el('p', 'clear', '✓ ' + clear.join(', ')));
    return box;
  }

  // crashBanner says what crashed, first: the kind, the message as the
  // runtime printed it, and a link to the group of the goroutine that
  // crashed.
  function crashBanner(c) {
    var box = el('div', 'banner bad crash');
    box.setAttribute('data-crash-kind', c.kind);
    add(box, el('strong', 'crash-kind', c.kind.toUpperCase()), ' ', el('pre', 'crash-message', c.message));
    if (c.goroutine) {
      var p = el('p', 'crash-where', 'in goroutine ' + c.goroutine);
      if (c.group >= 0) {
        var a = el('a', null, 'show its group');
        a.href = '#';
        a.addEventListener('click', function (ev) { ev.preventDefault(); goToGroup(c.group, true); });
        add(p, ' · ', a);
      }
      box.appendChild(p);
    }
    return box;
  }

  // threadRef names a thread of the lock analysis, linked to its group
  // when the page lists it.
  function threadRef(t) {
    var name = '"' + t.name + '"', inp = cur();
    if (t.group < 0 || !inp.groups[t.group]) return el('span', 'thread', name);
    var a = el('a', 'glink thread', name);
    a.href = '#group=' + encodeURIComponent(inp.groups[t.group].key);
    a.setAttribute('data-group', String(t.group));
    a.title = 'show its group';
    return a;
  }

  // threadWhere is a thread with its state and the frame where it is.
  function threadWhere(t) {
    var span = el('span', 'who');
    add(span, threadRef(t));
    if (t.state) add(span, ' ', chip('state', t.state));
    if (t.frame != null) add(span, ' at ', el('code', null, shortName(t.frame)), ' ', el('span', 'loc dim', fWhere(t.frame, false)));
    return span;
  }

  // deadlockBanner shows each deadlock cycle of the lock graph: every
  // thread, the lock it waits for and the thread holding it, the last
  // held by the first.
  function deadlockBanner(locks) {
    var box = el('div', 'banner bad deadlocks'), n = locks.deadlocks.length;
    box.setAttribute('data-deadlocks', String(n));
    var title = n ? plural(n, 'deadlock', 'deadlocks') + ': threads that wait for each other in a cycle' : 'The JVM reported ' + plural(locks.reported, 'deadlock', 'deadlocks');
    if (n && locks.reported) title += ' (the JVM reported ' + num(locks.reported) + ')';
    if (!n) title += ', but its threads carry no lock lines to rebuild them from; see the preamble';
    add(box, el('strong', null, title));
    locks.deadlocks.forEach(function (d, di) {
      if (n > 1) box.appendChild(el('p', 'cycle-title', 'Deadlock ' + (di + 1) + ' of ' + n));
      var ol = el('ol', 'cycle');
      ol.setAttribute('data-cycle', String(di));
      d.steps.forEach(function (st, i) {
        var next = d.steps[(i + 1) % d.steps.length], li = el('li', 'step');
        add(li, threadWhere(st.thread), ' waits for ', el('code', 'lock', st.lock), ' held by ', threadRef(next.thread));
        ol.appendChild(li);
      });
      box.appendChild(ol);
    });
    return box;
  }

  // renderLocks lists the locks threads wait for: the lock, who holds it
  // (its state and frame), and who is blocked on it or waits on it.
  function renderLocks() {
    var inp = cur(), sec = $('locks'), body = $('locks-body'), locks = inp.locks;
    body.textContent = '';
    if (inp.goLocks && inp.goLocks.length) { sec.hidden = false; renderGoLocks(inp.goLocks, body); return; }
    if (!locks || !locks.locks.length) { sec.hidden = true; return; }
    sec.hidden = false;
    // Blocked is analyze's one meaning: acquiring a lock (entering a
    // monitor, parked acquiring a lock). Threads parked for a signal and
    // in Object.wait are listed apart, not counted as blocked.
    var blocked = locks.locks.reduce(function (a, l) { return a + l.blockedCount; }, 0);
    var parked = locks.locks.reduce(function (a, l) { return a + (l.parkedCount || 0); }, 0);
    $('locks-note').textContent = plural(locks.locks.length + (locks.more || 0), 'lock', 'locks') + ' with waiters, ' +
      plural(blocked, 'thread', 'threads') + ' blocked' + (parked ? ', ' + num(parked) + ' parked for a signal (not blocked)' : '') + '; most blocked first, deadlocked ones marked';
    $('locks-note').setAttribute('data-blocked', String(blocked));
    var table = el('table', 'locks'), head = el('tr');
    ['lock', 'held by', 'blocked', 'threads blocked on it, then parked or in Object.wait on it'].forEach(function (h) { head.appendChild(el('th', null, h)); });
    table.appendChild(head);
    locks.locks.forEach(function (l) {
      var tr = el('tr', l.deadlocked ? 'deadlocked' : null);
      tr.setAttribute('data-lock', l.lock);
      tr.appendChild(add(el('td'), el('code', 'lock', l.lock), l.deadlocked ? add(el('div', 'dim'), 'on a deadlock cycle') : null));
      var owner = el('td');
      if (l.owner) {
        owner.appendChild(threadWhere(l.owner));
        if (l.ownerFrom === 'jvm-report') add(owner, el('div', 'dim', 'named by the JVM\'s deadlock report'));
      } else {
        owner.appendChild(el('span', 'dim', 'no thread of the dump says it holds it'));
      }
      tr.appendChild(owner);
      tr.appendChild(add(el('td', 'n'), num(l.blockedCount)));
      var who = el('td');
      who.appendChild(threadList(l.blocked, l.blockedCount));
      if (l.parkedCount) add(who, el('div', 'dim', num(l.parkedCount) + ' parked on it for a signal (not blocked):'), threadList(l.parked, l.parkedCount));
      if (l.waitingCount) add(who, el('div', 'dim', num(l.waitingCount) + ' in Object.wait (released it, wait for a notify):'), threadList(l.waiting, l.waitingCount));
      tr.appendChild(who);
      table.appendChild(tr);
    });
    body.appendChild(table);
    if (locks.more) body.appendChild(el('p', 'dim', plural(locks.more, 'more lock', 'more locks') + ' with fewer waiters are left out.'));
  }

  // renderGoLocks lists the locks goroutines wait for whose address the
  // traceback's arguments show (analyze's Go lock table): the lock, its
  // waiters (linked to their groups), where and how long they wait, and
  // its probable holder with the evidence, or why none is named.
  function renderGoLocks(ls, body) {
    var waiters = ls.reduce(function (a, l) { return a + l.waiters; }, 0);
    $('locks-note').textContent = plural(ls.length, 'lock', 'locks') + ' goroutines wait for, by address, ' + plural(waiters, 'goroutine', 'goroutines') + ' waiting; deadlocked and most waited for first';
    $('locks-note').setAttribute('data-blocked', String(waiters));
    var table = el('table', 'locks golocks'), head = el('tr');
    ['lock', 'probably held by', 'waiting', 'where they wait'].forEach(function (h) { head.appendChild(el('th', null, h)); });
    table.appendChild(head);
    ls.forEach(function (l) {
      var tr = el('tr', l.deadlocked ? 'deadlocked' : null);
      tr.setAttribute('data-lock', l.addr);
      tr.appendChild(add(el('td'), el('code', 'lock', l.kind + ' ' + l.addr), l.deadlocked ? add(el('div', 'dim'), 'on a deadlock cycle') : null));
      var owner = el('td');
      if (l.holder) owner.appendChild(routineText(l.holder));
      add(owner, el('div', 'dim', l.holder_evidence));
      tr.appendChild(owner);
      tr.appendChild(add(el('td', 'n'), num(l.waiters)));
      var where = el('td');
      add(where, frameText(l.frame), l.wait_max ? el('span', 'dim', ' · up to ' + l.wait_max + ' min') : null);
      var gs = findingGroups({ ids: l.ids });
      if (gs.length) { add(where, ' · '); gs.slice(0, 3).forEach(function (gi, i) { if (i) add(where, ', '); where.appendChild(groupLink(gi)); }); }
      tr.appendChild(where);
      table.appendChild(tr);
    });
    body.appendChild(table);
  }

  // threadList names threads, linked to their groups, and how many more.
  function threadList(ts, count) {
    var span = el('span', 'threads');
    ts.forEach(function (t, i) { if (i) add(span, ', '); span.appendChild(threadRef(t)); });
    if (count > ts.length) add(span, ' and ' + num(count - ts.length) + ' more');
    return span;
  }

  // racesBanner lists the dump's data races as analyze does: each race
  // (identical reports folded, with their count), each access with who
  // made it, its top frames, and where its goroutine was created.
  function racesBanner(inp) {
    var box = el('div', 'banner bad races');
    var title = plural(inp.races.length, 'data race', 'data races');
    if (inp.racesTotal !== inp.races.length) title += ' in ' + plural(inp.racesTotal, 'report', 'reports');
    add(box, el('strong', null, title), ' found by the race detector');
    inp.races.forEach(function (r) {
      var div = el('div', 'race');
      if (r.count > 1 && inp.races.length > 1) add(div, el('p', 'race-count', plural(r.count, 'report', 'reports') + ' of this race'));
      r.accesses.forEach(function (a) {
        var p = el('p', 'race-access');
        add(p, el('strong', null, a.op + (a.main ? ' by main goroutine' : ' by goroutine ' + a.goroutine)), ' ', el('code', null, raceFrames(a.frames)));
        div.appendChild(p);
        if (a.created_at && a.created_at.length) {
          add(div, add(el('p', 'race-created dim', 'created at '), el('code', null, raceFrames(a.created_at))));
        }
      });
      box.appendChild(div);
    });
    return box;
  }

  // raceFrames writes frames innermost first, each as "func file:line".
  function raceFrames(fs) {
    if (!fs.length) return '(no frames)';
    return fs.map(function (f) {
      return f.func + (f.file ? ' ' + f.file.split('/').pop() + ':' + f.line : '');
    }).join(' \u2190 ');
  }

  // ---- states chart ----

  function renderStates() {
    var inp = cur(), box = $('states-chart'), note = $('states-note');
    box.textContent = '';
    if (!inp.states.length) {
      note.textContent = '';
      var why = inp.kind === 'go-debug1' || inp.kind === 'go-pprof' ? ' (debug=1 and pprof profiles do not)' : '';
      box.appendChild(el('p', 'dim', inp.groups.length ? 'This dump records no states' + why + '.' : 'No ' + inp.noun + '.'));
      return;
    }
    var shown = {};
    view.visible.forEach(function (gi) {
      (inp.groups[gi].states || []).forEach(function (s) { shown[s.s] = (shown[s.s] || 0) + s.n; });
    });
    var rows = inp.states.slice(0, 16);
    if (inp.states.length > 16) {
      var rest = 0, restShown = 0;
      inp.states.slice(16).forEach(function (s) { rest += s[1]; restShown += shown[s[0]] || 0; });
      rows.push(['(' + (inp.states.length - 16) + ' other states)', rest, restShown, true]);
    }
    note.textContent = view.terms.length ? 'solid: the filtered groups; pale: the whole dump; click a bar to filter' : 'click a bar to filter';
    var W = Math.max(360, box.clientWidth || 900), RH = 22, LW = Math.min(260, W * 0.3), NW = 150;
    var BW = W - LW - NW - 12, H = rows.length * RH + 4;
    var max = rows.reduce(function (a, r) { return Math.max(a, r[1]); }, 1);
    var s = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'goroutines per state', 'class': 'states-svg' });
    rows.forEach(function (r, i) {
      var y = i * RH + 2, cnt = r[1], sh = r.length > 2 ? r[2] : (shown[r[0]] || 0);
      var g = svg('g', { 'class': r[3] ? 'state-row other' : 'state-row' });
      if (!r[3]) g.setAttribute('data-state', r[0]);
      var w = Math.max(1, cnt / max * BW);
      add(g,
        svg('title', {}, r[0] + ': ' + num(cnt) + ' ' + inp.noun + (view.terms.length ? ', ' + num(sh) + ' in the filtered groups' : '')),
        svg('rect', { x: 0, y: y, width: W, height: RH - 2, 'class': 'hit' }),
        svg('text', { x: LW - 8, y: y + RH / 2 + 3, 'text-anchor': 'end', 'class': 'label' }, clipText(r[0], LW - 12, 7)),
        svg('rect', { x: LW, y: y + 2, width: w, height: RH - 6, rx: 2, 'class': view.terms.length ? 'bar pale' : 'bar' }));
      if (view.terms.length && sh > 0) {
        g.appendChild(svg('rect', { x: LW, y: y + 2, width: Math.max(1, sh / max * BW), height: RH - 6, rx: 2, 'class': 'bar' }));
      }
      g.appendChild(svg('text', { x: LW + w + 6, y: y + RH / 2 + 3, 'class': 'num' },
        num(cnt) + ' (' + percent(cnt, inp.total) + ')' + (view.terms.length ? ' · ' + num(sh) + ' shown' : '')));
      s.appendChild(g);
    });
    s.addEventListener('click', function (e) {
      var g = e.target.closest && e.target.closest('[data-state]');
      if (g) setFilter('state:"' + g.getAttribute('data-state') + '"');
    });
    box.appendChild(s);
  }

  // ---- flame graph (icicle: callers on top) ----

  function buildTree() {
    var inp = cur(), rootNode = { f: -1, n: 0, kids: null, parent: null };
    view.visible.forEach(function (gi) {
      var g = inp.groups[gi], node = rootNode, c = g.count;
      rootNode.n += c;
      for (var i = g.stack.length - 1; i >= 0; i--) {
        var f = g.stack[i];
        if (!node.kids) node.kids = new Map();
        var k = node.kids.get(f);
        if (!k) { k = { f: f, n: 0, kids: null, parent: node }; node.kids.set(f, k); }
        k.n += c;
        node = k;
      }
    });
    return rootNode;
  }

  function sortedKids(node) {
    if (!node.kids) return [];
    if (!node.sorted) {
      node.sorted = Array.from(node.kids.values()).sort(function (a, b) {
        return b.n - a.n || (fFunc(a.f) < fFunc(b.f) ? -1 : 1);
      });
    }
    return node.sorted;
  }

  function nodeName(node) { return node.f < 0 ? 'all ' + cur().noun : fFunc(node.f); }

  function renderFlame() {
    var inp = cur(), box = $('flame-chart'), crumbs = $('flame-crumbs');
    if (!view.tree) view.tree = buildTree();
    box.textContent = '';
    crumbs.textContent = '';
    var tree = view.tree;
    if (!tree.n) {
      box.appendChild(el('p', 'dim', view.terms.length ? 'No group matches the filter.' : 'No stacks.'));
      return;
    }
    // Follow the zoom path as far as it still exists under the filter.
    var chain = [tree], z = tree;
    for (var i = 0; i < view.zoom.length; i++) {
      var k = z.kids && z.kids.get(view.zoom[i]);
      if (!k) break;
      z = k;
      chain.push(z);
    }
    if (chain.length > 1) {
      chain.forEach(function (n, d) {
        var b = el('button', 'crumb', d === 0 ? 'all' : shortName(n.f));
        b.type = 'button';
        b.title = nodeName(n);
        b.addEventListener('click', function () { view.zoom = view.zoom.slice(0, d); renderFlame(); });
        if (d) crumbs.appendChild(el('span', 'sep', '›'));
        crumbs.appendChild(b);
      });
    }
    var W = Math.max(320, box.clientWidth || 1200), items = [];
    chain.forEach(function (n, d) { items.push({ n: n, x: 0, w: W, d: d, anc: n !== z }); });
    var depth = chain.length;
    (function lay(node, x, d) {
      var kids = sortedKids(node), cx = x;
      for (var j = 0; j < kids.length && items.length < MAX_FLAME_NODES; j++) {
        var w = kids[j].n / z.n * W;
        if (w < 1) break; // sorted by count: the rest are narrower
        items.push({ n: kids[j], x: cx, w: w, d: d });
        if (d + 1 > depth) depth = d + 1;
        lay(kids[j], cx, d + 1);
        cx += w;
      }
    })(z, 0, chain.length);
    var H = depth * FLAME_ROW + 1;
    var s = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'class': 'flame-svg', role: 'img', 'aria-label': 'flame graph of the stacks' });
    items.forEach(function (it, idx) {
      var n = it.n, g = svg('g', { 'data-i': idx, 'class': it.anc ? 'fn anc' : 'fn' });
      var name = nodeName(n);
      var tip = name + (n.f >= 0 && fWhere(n.f, true) ? '\n' + fWhere(n.f, true) : '') +
        '\n' + num(n.n) + ' ' + inp.noun + ' (' + percent(n.n, tree.n) + ')';
      add(g,
        svg('title', {}, tip),
        svg('rect', { x: it.x.toFixed(1), y: it.d * FLAME_ROW, width: Math.max(0.5, it.w - 0.5).toFixed(1), height: FLAME_ROW - 1, fill: n.f < 0 ? '#c9ccd1' : frameColor(n.f) }));
      if (it.w > 28) {
        g.appendChild(svg('text', { x: (it.x + 3).toFixed(1), y: it.d * FLAME_ROW + 12.5 }, clipText(n.f < 0 ? name : shortName(n.f), it.w - 6, 6.6)));
      }
      s.appendChild(g);
    });
    s.addEventListener('click', function (e) {
      var g = e.target.closest && e.target.closest('g[data-i]');
      if (!g) return;
      var n = items[Number(g.getAttribute('data-i'))].n, path = [];
      for (var p = n; p && p.f >= 0; p = p.parent) path.unshift(p.f);
      view.zoom = path;
      renderFlame();
    });
    box.appendChild(s);
    if (items.length >= MAX_FLAME_NODES) box.appendChild(el('p', 'dim', 'Only the ' + num(MAX_FLAME_NODES) + ' widest frames are drawn; click to zoom in.'));
  }

  // ---- timeline ----

  // niceStep is the smallest of 1, 2, 5, 10, 20, 50… at least v.
  function niceStep(v) {
    if (v <= 1) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v))), m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  // axisTimes are the dumps' times as the axis shows them, in UTC: their
  // capture times, else their files' modification times (marked "*"),
  // as "12:00:05" when they fall on one day (with milliseconds when two
  // share a second), else "12-01 12:00". Null when a dump has neither, or
  // when two would read the same (a file of several dumps without times).
  function axisTimes(inputs) {
    var ts = inputs.map(function (inp) { return inp.at ? new Date(inp.at).toISOString() : ''; });
    if (ts.some(function (t) { return !t; })) return null;
    var oneDay = ts.every(function (t) { return t.slice(0, 10) === ts[0].slice(0, 10); });
    var ms = ts.some(function (t, i) { return i > 0 && t.slice(0, 19) === ts[i - 1].slice(0, 19); });
    var labels = ts.map(function (t, i) {
      var l = oneDay ? t.slice(11, ms ? 23 : 19) : t.slice(5, 10) + ' ' + t.slice(11, 16);
      return l + (inputs[i].atFrom === 'modified' ? '*' : '');
    });
    var seen = {};
    for (var i = 0; i < labels.length; i++) {
      if (seen[labels[i]]) return null;
      seen[labels[i]] = true;
    }
    var note = 'times in UTC' + (inputs.some(function (inp) { return inp.atFrom === 'modified'; }) ? '; * the file\'s modification time, for dumps that record no capture time' : '');
    return { labels: labels, note: note };
  }

  // axisNames are the dumps' names as the time axis shows them: without
  // the start all of them share ("goroutines-20261201T12…") and a shared
  // extension, which the column's tooltip still has.
  function axisNames(names) {
    if (names.length < 2) return names;
    var pre = names[0], suf = names[0];
    names.forEach(function (s) {
      while (s.indexOf(pre) !== 0) pre = pre.slice(0, -1);
      while (suf && s.slice(-suf.length) !== suf) suf = suf.slice(1);
    });
    if (suf.indexOf('.') < 0) suf = ''; else suf = suf.slice(suf.indexOf('.'));
    var out = names.map(function (s) { return s.slice(pre.length, s.length - suf.length); });
    return out.some(function (s) { return s === ''; }) ? names : out;
  }

  // fitAxisRow makes one row of time axis labels fit: each label is clipped
  // to the room it has, measured in the browser rather than guessed; when
  // that room would cut labels to fewer than 8 characters, every k-th label
  // is shown instead; and a label that would still touch the one before it,
  // or leave the chart, is left out (the last one is kept). It returns how
  // many labels it shows, and how many overlap or stick out afterwards.
  function fitAxisRow(s, cls, slot, W) {
    var texts = Array.prototype.slice.call(s.querySelectorAll('text.' + cls)), n = texts.length;
    if (!n) return { shown: 0, overlaps: 0, outside: 0 };
    var probe = texts[0], full0 = probe.textContent;
    probe.textContent = 'mmmmmmmmmm';
    var charW = probe.getComputedTextLength() / 10 || 7;
    probe.textContent = full0;
    var widest = 0;
    texts.forEach(function (t) { widest = Math.max(widest, t.getComputedTextLength()); });
    var k = 1, gap = 8, need = Math.min(widest, charW * 8);
    while (k < n && slot * k - gap < need) k++;
    var room = Math.max(slot * k - gap, charW * 3);
    texts.forEach(function (t, i) {
      t.textContent = i % k === 0 || i === n - 1 ? fitText(t, t.getAttribute('data-full'), room) : '';
    });
    var prev = null, prevIdx = -1;
    texts.forEach(function (t, i) {
      if (!t.textContent) return;
      var b = t.getBBox();
      if (b.x < 0 || b.x + b.width > W) { t.textContent = ''; return; }
      if (prev && b.x < prev.x + prev.width + 4) {
        if (i !== n - 1) { t.textContent = ''; return; }
        texts[prevIdx].textContent = '';
      }
      prev = b; prevIdx = i;
    });
    var shown = 0, overlaps = 0, outside = 0, last = null;
    texts.forEach(function (t) {
      if (!t.textContent) return;
      shown++;
      var b = t.getBBox();
      if (b.x < 0 || b.x + b.width > W) outside++;
      if (last && b.x < last.x + last.width) overlaps++;
      last = b;
    });
    return { shown: shown, overlaps: overlaps, outside: outside };
  }

  // fitText is text, or its longest start that fits px with an ellipsis.
  function fitText(t, text, px) {
    t.textContent = text;
    if (t.getComputedTextLength() <= px) return text;
    var lo = 0, hi = text.length;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      t.textContent = text.slice(0, mid) + '…';
      if (t.getComputedTextLength() <= px) lo = mid; else hi = mid - 1;
    }
    return lo ? text.slice(0, lo) + '…' : '';
  }

  function renderTimeline() {
    var tl = D.timeline, sec = $('timeline');
    if (!tl || D.inputs.length < 2) { sec.hidden = true; return; }
    sec.hidden = false;
    var box = $('timeline-chart'), legend = $('timeline-legend'), withTotal = $('timeline-total').checked;
    box.textContent = '';
    legend.textContent = '';
    var n = D.inputs.length, W = Math.max(360, box.clientWidth || 900), H = 280;
    var L = 64, R = 24, T = 14, B = 46, PW = W - L - R, PH = H - T - B;
    var series = tl.series.map(function (s, i) { return { label: s.label, key: s.key, counts: s.counts, color: PALETTE[i % PALETTE.length] }; });
    if (withTotal) series.unshift({ label: 'total', counts: tl.totals, color: 'currentColor', total: true });
    var maxY = 0;
    series.forEach(function (s) { s.counts.forEach(function (c) { if (c > maxY) maxY = c; }); });
    var step = niceStep(maxY / 4);
    maxY = step * 4;
    function X(i) { return L + (n === 1 ? PW / 2 : i * PW / (n - 1)); }
    function Y(v) { return T + PH - v / maxY * PH; }
    var s = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'class': 'timeline-svg', role: 'img', 'aria-label': 'group counts over the dumps' });
    for (var t = 0; t <= 4; t++) {
      var v = step * t, y = Y(v);
      add(s, svg('line', { x1: L, x2: W - R, y1: y, y2: y, 'class': 'grid' }),
        svg('text', { x: L - 6, y: y + 4, 'text-anchor': 'end', 'class': 'tick' }, num(v)));
    }
    var slot = n > 1 ? PW / (n - 1) : PW;
    var times = axisTimes(D.inputs);
    var names = times ? times.labels : axisNames(D.inputs.map(function (inp) { return baseName(inp.name); }));
    s.setAttribute('data-axis', times ? 'times' : 'names');
    D.inputs.forEach(function (inp, i) {
      var col = svg('g', { 'class': i === view.dump ? 'col current' : 'col', 'data-dump': i });
      // The end labels hang inwards so that they stay inside the chart.
      var anchor = n > 1 && i === 0 ? 'start' : n > 1 && i === n - 1 ? 'end' : 'middle';
      var lx = anchor === 'start' ? X(i) - Math.min(slot / 2, L - 4) : anchor === 'end' ? X(i) + Math.min(slot / 2, R - 2) : X(i);
      add(col,
        svg('title', {}, inp.name + (inp.at ? ', ' + (inp.atFrom === 'modified' ? 'file modified ' : 'captured ') + inp.at : '') + ': ' + num(tl.totals[i]) + ' ' + inp.noun + ' (click to show this dump)'),
        svg('rect', { x: X(i) - slot / 2, y: T, width: slot, height: PH + B - 4, 'class': 'hit' }),
        svg('line', { x1: X(i), x2: X(i), y1: T, y2: T + PH, 'class': 'mark' }),
        svg('text', { x: lx, y: T + PH + 16, 'text-anchor': anchor, 'class': 'tick axis-name', 'data-full': names[i] }, names[i]),
        svg('text', { x: lx, y: T + PH + 32, 'text-anchor': anchor, 'class': 'tick dim axis-total', 'data-full': num(tl.totals[i]) }, num(tl.totals[i])));
      s.appendChild(col);
    });
    series.forEach(function (sr) {
      var pts = sr.counts.map(function (c, i) { return X(i).toFixed(1) + ',' + Y(c).toFixed(1); }).join(' ');
      var g = svg('g', { 'class': sr.total ? 'series total' : 'series' });
      g.appendChild(svg('polyline', { points: pts, stroke: sr.color, fill: 'none' }));
      sr.counts.forEach(function (c, i) {
        var dot = svg('circle', { cx: X(i).toFixed(1), cy: Y(c).toFixed(1), r: 3.5, fill: sr.color });
        dot.appendChild(svg('title', {}, sr.label + '\n' + D.inputs[i].name + ': ' + num(c)));
        g.appendChild(dot);
      });
      s.appendChild(g);
    });
    s.addEventListener('click', function (e) {
      var c = e.target.closest && e.target.closest('[data-dump]');
      if (c) showDump(Number(c.getAttribute('data-dump')));
    });
    box.appendChild(s);
    var fit = [fitAxisRow(s, 'axis-name', slot, W), fitAxisRow(s, 'axis-total', slot, W)];
    $('timeline-axis-note').textContent = times ? times.note : 'dumps named by what their names do not share';
    s.setAttribute('data-axis-shown', fit[0].shown + ',' + fit[1].shown);
    s.setAttribute('data-axis-overlaps', String(fit[0].overlaps + fit[1].overlaps));
    s.setAttribute('data-axis-outside', String(fit[0].outside + fit[1].outside));

    var inp = cur();
    series.forEach(function (sr) {
      if (sr.total) return;
      var li = el('li'), gi = inp.byKey[sr.key];
      var sw = el('span', 'swatch');
      sw.style.background = sr.color;
      var first = sr.counts[0], last = sr.counts[sr.counts.length - 1];
      var peak = Math.max.apply(null, sr.counts), peakAt = sr.counts.indexOf(peak);
      add(li, sw);
      if (gi != null) {
        var a = el('a', 'glink', sr.label);
        a.href = '#group=' + encodeURIComponent(sr.key);
        a.setAttribute('data-group', String(gi));
        li.appendChild(a);
      } else {
        add(li, el('span', 'dim', sr.label), el('span', 'dim', ' (not in this dump)'));
      }
      add(li, el('span', 'num', ' ' + num(first) + ' → ' + num(last) + (last !== first ? ' (' + (last > first ? '+' : '') + num(last - first) + ')' : '')));
      // The peak, when the line rises above both ends.
      if (peak > first && peak > last) add(li, el('span', 'num peak', ', peak ' + num(peak) + ' at ' + names[peakAt]));
      li.setAttribute('data-peak', String(peak));
      legend.appendChild(li);
    });
  }

  // ---- groups ----

  // statedCount counts a group's members that have a state.
  function statedCount(g) {
    return (g.states || []).reduce(function (n, s) { return n + s.n; }, 0);
  }

  function chip(cls, text, title) {
    var c = el('span', 'chip ' + cls, text);
    if (title) c.title = title;
    return c;
  }

  function waitText(g) {
    if (!g.wait) return '';
    return g.wait[0] === g.wait[1] ? g.wait[1] + ' min' : g.wait[0] + '–' + g.wait[1] + ' min';
  }

  function labelText(set) { return set.map(function (kv) { return kv[0] + '=' + kv[1]; }).join(' '); }

  function groupLink(gi, text) {
    var g = cur().groups[gi];
    var a = el('a', 'glink', text || ('#' + (gi + 1) + ' ' + (g.top >= 0 ? shortName(g.top) : '(no frames)')));
    a.href = '#group=' + encodeURIComponent(g.key);
    a.setAttribute('data-group', String(gi));
    a.title = num(g.count) + ' ' + cur().noun + (g.top >= 0 ? ' at ' + fFunc(g.top) : '');
    return a;
  }

  function groupItem(g) {
    var inp = cur(), det = el('details', 'group');
    det.id = 'g' + g.index;
    var sum = el('summary');
    var share = el('span', 'share');
    var bar = el('span', 'share-bar');
    bar.style.width = Math.max(1, Math.round(100 * g.count / Math.max(1, inp.total))) + '%';
    share.appendChild(bar);
    share.title = percent(g.count, inp.total) + ' of the ' + inp.noun;
    add(sum, el('span', 'rank', '#' + (g.index + 1)), el('span', 'count', num(g.count)), share);
    var what = el('span', 'what');
    if (g.top >= 0) {
      add(what, el('span', 'func', fFunc(g.top)), ' ', el('span', 'loc', fWhere(g.top, false)));
      if (g.prim >= 0) add(what, el('span', 'via', ' in '), el('span', 'func wait', shortName(g.prim)));
    } else {
      what.appendChild(el('span', 'func dim', g.unavailable ? '(stack unavailable)' : '(no frames)'));
    }
    sum.appendChild(what);
    var meta = el('span', 'meta');
    // A count is shown when members differ, also when some have no state.
    var counted = g.states && (g.states.length > 1 || statedCount(g) < g.count);
    (g.states || []).slice(0, 2).forEach(function (s) {
      meta.appendChild(chip('state', s.s + (counted ? ' ' + num(s.n) : ''), num(s.n) + ' ' + s.s));
    });
    if (g.states && g.states.length > 2) meta.appendChild(chip('state', '+' + (g.states.length - 2)));
    if (g.wait) meta.appendChild(chip('wait', waitText(g), 'blocked for ' + waitText(g) + 'utes'));
    if (g.leaked) meta.appendChild(chip('leaked', 'proven leaked ' + num(g.leaked), num(g.leaked) + ' the runtime proved leaked: blocked on something nothing reachable can wake'));
    if (g.locked) meta.appendChild(chip('locked', 'locked', num(g.locked) + ' locked to their thread'));
    (g.labels || []).slice(0, 2).forEach(function (l) { meta.appendChild(chip('label', labelText(l.set), num(l.n) + ' with these labels')); });
    if (g.labels && g.labels.length > 2) meta.appendChild(chip('label', '+' + (g.labels.length - 2) + ' label sets'));
    if (g.name) meta.appendChild(chip('name', g.name, 'thread name (of one member)'));
    sum.appendChild(meta);
    det.appendChild(sum);
    det.addEventListener('toggle', function () {
      if (det.open && !det.built) { det.built = true; det.appendChild(groupBody(g)); }
    });
    return det;
  }

  function idList(ids, more, noun) {
    var span = el('span', 'ids');
    var first = ids.slice(0, 40);
    span.textContent = first.join(', ');
    var rest = ids.length - first.length;
    if (rest > 0) {
      var b = el('button', 'linkish', ' … show ' + num(rest) + ' more');
      b.type = 'button';
      b.addEventListener('click', function () { span.textContent = ids.join(', ') + (more ? ' and ' + num(more) + ' more ' + noun + ' not listed' : ''); });
      add(span, b);
    } else if (more) {
      add(span, ' and ' + num(more) + ' more');
    }
    return span;
  }

  function groupBody(g) {
    var inp = cur(), body = el('div', 'body'), dl = el('dl', 'facts');
    if (g.states && g.states.length) {
      var none = g.count - statedCount(g);
      fact(dl, 'states', g.states.map(function (s) { return s.s + ' ' + num(s.n); }).join(' · ') + (none > 0 ? ' · no state ' + num(none) : ''));
    }
    if (g.wait) fact(dl, 'waiting', waitText(g) + 'utes (from the time of the first GC that saw them blocked)');
    if (g.leaked) fact(dl, 'proven leaked', num(g.leaked) + ' (the runtime\'s goroutine leak profile: nothing reachable can wake them)');
    if (g.locked) fact(dl, 'locked', num(g.locked) + ' locked to their OS thread');
    if (g.labels && g.labels.length) {
      var lab = el('span');
      g.labels.forEach(function (l, i) { if (i) add(lab, ' · '); add(lab, el('code', null, labelText(l.set)), ' ' + num(l.n)); });
      fact(dl, 'labels', lab);
    }
    if (g.ids && g.ids.length) fact(dl, inp.noun === 'threads' ? 'thread ids' : 'goroutine ids', idList(g.ids, g.moreIds, 'ids'));
    if (g.name) fact(dl, 'thread', g.name + (g.daemon ? ' (daemon)' : '') + (g.virtual ? ' (virtual)' : ''));
    if (g.creator != null) {
      var cb = el('span');
      add(cb, el('code', null, fFunc(g.creator)), ' ', el('span', 'loc', fWhere(g.creator, true)));
      if (g.parents && g.parents.length) add(cb, ' in goroutine ' + g.parents.slice(0, 10).join(', ') + (g.parents.length > 10 || g.moreParents ? ', …' : ''));
      fact(dl, 'created by', cb);
    }
    var links = el('span');
    (g.parentGroups || []).forEach(function (p, i) { if (i) add(links, ', '); links.appendChild(groupLink(p)); });
    if (links.childNodes.length) fact(dl, 'creator’s group', links);
    else if (g.creatorGroups && g.creatorGroups.length) {
      (g.creatorGroups || []).forEach(function (p, i) { if (i) add(links, ', '); links.appendChild(groupLink(p)); });
      var who = g.parents && g.parents.length ? 'goroutine ' + g.parents.join(', ') + ' is gone' : 'the dump does not name the creating goroutine';
      add(links, el('span', 'dim', ' (' + who + '; these groups run ' + fFunc(g.creator) + ')'));
      fact(dl, 'creator’s group', links);
    }
    if (g.children.length) {
      var kids = el('span');
      g.children.slice(0, 12).forEach(function (c, i) { if (i) add(kids, ', '); kids.appendChild(groupLink(c)); });
      if (g.children.length > 12) add(kids, ' and ' + (g.children.length - 12) + ' more');
      fact(dl, 'started', kids);
    }
    fact(dl, 'key', g.key);
    body.appendChild(dl);
    var ol = el('ol', 'frames');
    g.stack.forEach(function (fi, i) {
      if (g.elided && g.elided.at === i) {
        ol.appendChild(el('li', 'elided', '… ' + (g.elided.n ? num(g.elided.n) + ' frames' : 'more frames') + ' elided by the runtime …'));
      }
      var fl = fFlags(fi), li = el('li', 'frame' + (fl & FL_RUNTIME ? ' runtime' : fl & FL_STD ? ' std' : ' app'));
      add(li, el('span', 'fn', fFunc(fi)));
      if (fl & FL_INLINED) add(li, ' ', chip('tag', 'inlined'));
      if (fl & FL_NATIVE) add(li, ' ', chip('tag', 'native'));
      add(li, el('span', 'file', fWhere(fi, true)));
      ol.appendChild(li);
    });
    if (g.elided && g.elided.at >= g.stack.length) {
      ol.appendChild(el('li', 'elided', '… ' + (g.elided.n ? num(g.elided.n) + ' frames' : 'more frames') + ' elided by the runtime …'));
    }
    if (!g.stack.length) ol.appendChild(el('li', 'dim', g.unavailable ? 'stack unavailable: the goroutine was running on another thread' : 'no frames'));
    body.appendChild(ol);
    return body;
  }

  function renderGroups(reset, upTo) {
    var inp = cur(), list = $('groups-list');
    if (reset) { list.textContent = ''; view.shown = 0; }
    var end = Math.min(view.visible.length, Math.max(view.shown + (reset ? PAGE : 0), upTo || 0));
    var frag = doc.createDocumentFragment();
    for (; view.shown < end; view.shown++) frag.appendChild(groupItem(inp.groups[view.visible[view.shown]]));
    list.appendChild(frag);
    if (!view.visible.length) {
      list.textContent = '';
      list.appendChild(el('p', 'dim', inp.groups.length ? 'No group matches the filter.' : 'No ' + inp.noun + ' in this dump.'));
    }
    var left = view.visible.length - view.shown, more = $('show-more'), all = $('show-all');
    more.hidden = left <= 0;
    all.hidden = left <= PAGE;
    more.textContent = 'Show ' + num(Math.min(PAGE, left)) + ' more';
    all.textContent = 'Show all ' + num(left) + ' remaining';
  }

  function goToGroup(gi, push) {
    var pos = view.visible.indexOf(gi);
    if (pos < 0) {
      setFilter('', { hash: false });
      pos = view.visible.indexOf(gi);
    }
    renderGroups(false, pos + 1);
    var det = $('g' + gi);
    if (!det) return;
    det.open = true;
    if (!det.built) { det.built = true; det.appendChild(groupBody(cur().groups[gi])); }
    det.scrollIntoView({ block: 'start' });
    det.classList.remove('flash');
    void det.offsetWidth;
    det.classList.add('flash');
    writeHash(push, cur().groups[gi].key);
  }

  // ---- dumps ----

  function showDump(i) {
    if (i === view.dump || i < 0 || i >= D.inputs.length) return;
    view.dump = i;
    view.zoom = [];
    $('dump-select').value = String(i);
    renderSummary();
    renderLocks();
    renderTimeline();
    refresh();
    writeHash(false);
  }

  // The filter's examples speak the dumps' language: JVM ones when every
  // dump is a JVM's.
  function filterHints() {
    if (!D.inputs.length || !D.inputs.every(function (inp) { return inp.noun === 'threads'; })) return;
    $('filter').placeholder = 'Filter: method, package, state, thread name…   e.g. java.util.concurrent  state:BLOCKED  name:http-nio  -jdk.internal  (press /)';
    $('help-id').textContent = 'thread #N';
    $('help-example').textContent = 'name:"http-nio-8080-exec"';
  }

  function renderHeader() {
    $('title').textContent = D.title;
    filterHints();
    var sel = $('dump-select');
    if (D.inputs.length > 1) {
      $('dump-pick').hidden = false;
      D.inputs.forEach(function (inp, i) {
        var o = el('option', null, (i + 1) + '. ' + inp.name + ' (' + num(inp.total) + ')');
        o.value = String(i);
        sel.appendChild(o);
      });
      sel.value = String(view.dump);
      sel.addEventListener('change', function () { showDump(Number(sel.value)); });
    }
    var foot = $('foot');
    add(foot, 'Made by stackdump' + (D.generated ? ' at ' + D.generated : '') + '. This page is self-contained: it loads nothing from the network.');
  }

  // ---- wiring ----

  function debounce(fn, ms) {
    var t = 0;
    return function () { clearTimeout(t); t = setTimeout(fn, ms); };
  }

  function wire() {
    var box = $('filter');
    box.addEventListener('input', debounce(function () { setFilter(box.value); }, 150));
    box.addEventListener('keydown', function (e) {
      if (e.key === 'Escape') { setFilter(''); }
      if (e.key === 'Enter') { setFilter(box.value); }
    });
    doc.addEventListener('keydown', function (e) {
      if (e.key === '/' && doc.activeElement !== box && !/^(INPUT|SELECT|TEXTAREA)$/.test(doc.activeElement.tagName)) {
        e.preventDefault();
        box.focus();
        box.select();
      }
    });
    $('show-more').addEventListener('click', function () { renderGroups(false, view.shown + PAGE); });
    $('show-all').addEventListener('click', function () { renderGroups(false, view.visible.length); });
    $('timeline-total').addEventListener('change', renderTimeline);
    doc.addEventListener('click', function (e) {
      var a = e.target.closest && e.target.closest('a.glink[data-group]');
      if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
      e.preventDefault();
      goToGroup(Number(a.getAttribute('data-group')), true);
    });
    window.addEventListener('hashchange', function () {
      if (location.hash !== lastHash) applyHash();
    });
    var redraw = debounce(function () { renderStates(); renderFlame(); renderTimeline(); }, 200);
    var lastWidth = window.innerWidth;
    window.addEventListener('resize', function () {
      if (window.innerWidth !== lastWidth) { lastWidth = window.innerWidth; redraw(); }
    });
  }

  function start() {
    var h = readHash();
    var d = h.dump != null ? parseInt(h.dump, 10) : view.dump;
    if (d >= 0 && d < D.inputs.length) view.dump = d;
    view.filter = h.filter || '';
    view.terms = parseFilter(view.filter);
    $('filter').value = view.filter;
    lastHash = location.hash;
    renderHeader();
    renderSummary();
    renderLocks();
    renderTimeline();
    wire();
    refresh();
    if (h.group) {
      var gi = cur().byKey[h.group];
      if (gi != null) goToGroup(gi, false);
    }
    root.setAttribute('data-render-ms', String(Math.round(performance.now() - t0)));
    root.setAttribute('data-ready', '1');
  }

  start();
})();
