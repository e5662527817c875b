// The status page: plain JavaScript over the service's own GET API, charts drawn as inline SVG.
// Every value from the API reaches the DOM as text (textContent, text nodes, attributes set one
// by one): never as markup.
'use strict';

(function () {
  const KEY_STORE = 'tidemark.apiKey';
  const KEY_HEADER = 'X-API-Key';
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const POLL_MS = 1000;
  const HISTORY = 50;

  // ---------------------------------------------------------------- DOM helpers

  /** An element: attrs set one by one, children appended (strings as text nodes). */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    setAttrs(e, attrs);
    append(e, children);
    return e;
  }

  function svg(tag, attrs, ...children) {
    const e = document.createElementNS(SVG_NS, tag);
    setAttrs(e, attrs);
    append(e, children);
    return e;
  }

  function setAttrs(e, attrs) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'onclick') e.addEventListener('click', v);
      else if (k === 'onchange') e.addEventListener('change', v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
  }

  function append(parent, children) {
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      parent.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function badge(status) {
    const s = status || 'NONE';
    return el('span', { class: 'badge ' + tone(s), 'data-status': s }, s.replace(/_/g, ' '));
  }

  /** The colour a status stands for. */
  function tone(status) {
    switch (status) {
      case 'PASSED': case 'PASS': case 'OK': case 'SUCCEEDED': case 'NOTHING_TO_DO':
      case 'ALREADY_COMMITTED':
        return 'good';
      case 'FAILED': case 'FAIL': case 'ERROR': case 'ALARM': case 'REJECTED':
        return 'bad';
      case 'RUNNING': case 'LEASE_HELD':
        return 'busy';
      default:
        return 'warn';
    }
  }

  // ---------------------------------------------------------------- formatting

  function fmtTime(iso) {
    if (!iso) return '—';
    const d = new Date(iso);
    if (isNaN(d)) return String(iso);
    return d.toISOString().replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
  }

  /** A run's watermark: a timestamp as a UTC time, a sequence as its number. */
  function fmtWatermark(run, which) {
    const w = run[which];
    if (!w) return '—';
    return run.changeMarkerType === 'TIMESTAMP' ? fmtTime(w) : w;
  }

  function fmtSeconds(s) {
    if (s === null || s === undefined) return '—';
    s = Math.max(0, Math.round(s));
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60 ? (s % 60) + ' s' : '');
    if (s < 172800) return Math.floor(s / 3600) + ' h ' + (Math.floor(s / 60) % 60) + ' min';
    return Math.floor(s / 86400) + ' d ' + (Math.floor(s / 3600) % 24) + ' h';
  }

  /** A duration short enough for a chart's axis: 90 s, 23 min, 5 h, 3 d. */
  function fmtSecondsShort(s) {
    if (s < 120) return Math.round(s) + ' s';
    if (s < 7200) return Math.round(s / 60) + ' min';
    if (s < 172800) return Math.round(s / 3600) + ' h';
    return Math.round(s / 86400) + ' d';
  }

  function age(iso) {
    if (!iso) return '—';
    return fmtSeconds((Date.now() - new Date(iso).getTime()) / 1000) + ' ago';
  }

  function fmtNumber(n) {
    if (n === null || n === undefined) return '—';
    if (Number.isInteger(n) || Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en');
    return String(Number(n.toPrecision(4)));
  }

  // ---------------------------------------------------------------- API

  class ApiFailure extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  function storedKey() {
    return sessionStorage.getItem(KEY_STORE) || '';
  }

  async function api(path, options) {
    const opts = Object.assign({ method: 'GET' }, options || {});
    const headers = Object.assign({ Accept: 'application/json' }, opts.headers || {});
    const key = opts.key !== undefined ? opts.key : storedKey();
    if (key) headers[KEY_HEADER] = key;
    let response;
    try {
      response = await fetch(path, { method: opts.method, headers, body: opts.body, cache: 'no-store' });
    } catch (e) {
      throw new ApiFailure(0, 'UNREACHABLE', 'Cannot reach the service: ' + e.message);
    }
    let body = null;
    const text = await response.text();
    try {
      body = text ? JSON.parse(text) : null;
    } catch (e) {
      body = null;
    }
    if (!response.ok) {
      const message = body && body.message ? body.message : 'HTTP ' + response.status;
      const failure = new ApiFailure(response.status, body && body.code, message);
      failure.runningId = body && body.runningId;
      failure.keySent = Boolean(key);
      throw failure;
    }
    return body;
  }

  /** An API failure in words a person can act on. */
  function describe(failure, action) {
    const what = action ? 'Cannot ' + action + ': ' : '';
    switch (failure.status) {
      case 401:
        return what + (failure.keySent ? 'the API key was refused' : 'this needs the API key') +
          ' (401 Unauthorized). ' + failure.message;
      case 409:
        if (failure.code !== 'ALREADY_RUNNING') return what + failure.message + ' (409 Conflict)';
        return what + 'a reconciliation of this dataset is already running (409 Conflict)' +
          (failure.runningId ? ': ' + failure.runningId : '') + '. Wait for it to finish.';
      case 404:
        return what + 'not found (404). ' + failure.message;
      case 400:
        return what + 'the request was refused (400). ' + failure.message;
      case 0:
        return what + failure.message;
      default:
        return what + 'the service answered ' + failure.status + '. ' + failure.message;
    }
  }

  // ---------------------------------------------------------------- API key dialog

  /** Asks for the API key; resolves to the key, or null when cancelled. */
  function askKey(title, why) {
    const dialog = document.getElementById('key-dialog');
    const input = document.getElementById('key-input');
    document.getElementById('key-title').textContent = title;
    document.getElementById('key-why').textContent = why;
    input.value = storedKey();
    return new Promise((resolve) => {
      dialog.addEventListener('close', function onClose() {
        dialog.removeEventListener('close', onClose);
        const key = input.value.trim();
        input.value = '';
        resolve(dialog.returnValue === 'ok' && key ? key : null);
      });
      dialog.returnValue = '';
      dialog.showModal();
      input.focus();
    });
  }

  function setKey(key) {
    if (key) sessionStorage.setItem(KEY_STORE, key);
    else sessionStorage.removeItem(KEY_STORE);
    updateKeyButton();
  }

  function updateKeyButton() {
    const b = document.getElementById('key-button');
    b.textContent = storedKey() ? 'Forget the API key' : 'API key';
  }

  // ---------------------------------------------------------------- notices

  function notice(message) {
    const n = document.getElementById('notice');
    if (!message) {
      n.hidden = true;
      n.textContent = '';
      return;
    }
    n.textContent = message;
    n.hidden = false;
  }

  /** The view when reads need the key: a prompt to give it. */
  function renderLocked(view, failure) {
    clear(view).appendChild(
      el('section', { class: 'panel locked', 'data-testid': 'locked' },
        el('h1', {}, 'This service protects its data'),
        el('p', { 'data-testid': 'locked-message' }, describe(failure)),
        el('p', {}, 'Reads need the same API key as starting a reconciliation.'),
        el('button', {
          type: 'button', 'data-testid': 'enter-key', onclick: async () => {
            const key = await askKey('API key', 'Reading this service needs its API key.');
            if (key) {
              setKey(key);
              route();
            }
          }
        }, 'Enter the API key')));
  }

  // ---------------------------------------------------------------- charts (inline SVG)

  const W = 480, H = 170, PAD_L = 52, PAD_R = 12, PAD_T = 14, PAD_B = 30;

  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
    return 10 * p;
  }

  /** A round top for a duration axis: 1, 2, 5, 10, 30 min, 1, 2, 3, 6, 12 h, then whole days. */
  function niceDuration(v) {
    for (const m of [10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 10800, 21600, 43200, 86400]) {
      if (m >= v) return m;
    }
    return Math.ceil(v / 86400) * 86400;
  }

  function frame(title, max, unitLabel) {
    const axisLabel = unitLabel === fmtSeconds ? fmtSecondsShort : unitLabel;
    const g = svg('svg', {
      viewBox: '0 0 ' + W + ' ' + H, class: 'chart', role: 'img', 'aria-label': title,
      preserveAspectRatio: 'xMidYMid meet'
    }, svg('title', {}, title));
    const y0 = H - PAD_B;
    for (const f of [0, 0.5, 1]) {
      const y = y0 - f * (y0 - PAD_T);
      g.appendChild(svg('line', { x1: PAD_L, x2: W - PAD_R, y1: y, y2: y, class: 'grid' }));
      g.appendChild(svg('text', { x: PAD_L - 6, y: y + 4, class: 'axis', 'text-anchor': 'end' },
        axisLabel(max * f)));
    }
    return g;
  }

  function xLabels(g, labels, xOf) {
    const every = Math.max(1, Math.ceil(labels.length / 6));
    labels.forEach((l, i) => {
      if (i % every !== 0 && i !== labels.length - 1) return;
      const anchor = labels.length > 1 && i === 0 ? 'start'
        : labels.length > 1 && i === labels.length - 1 ? 'end' : 'middle';
      g.appendChild(svg('text', { x: xOf(i), y: H - 10, class: 'axis', 'text-anchor': anchor }, l));
    });
  }

  /** Grouped bars: one group per label, one bar per series. */
  function barChart(title, labels, series, unitLabel) {
    unitLabel = unitLabel || fmtNumber;
    const top = Math.max(0, ...series.flatMap((s) => s.values.filter((v) => v != null)));
    const max = unitLabel === fmtSeconds ? niceDuration(top) : niceMax(top);
    const g = frame(title, max, unitLabel);
    const n = Math.max(1, labels.length);
    const slot = (W - PAD_L - PAD_R) / n;
    const bw = Math.max(2, Math.min(28, (slot * 0.8) / series.length));
    const y0 = H - PAD_B;
    labels.forEach((label, i) => {
      series.forEach((s, j) => {
        const v = s.values[i];
        if (v === null || v === undefined) return;
        const h = (v / max) * (y0 - PAD_T);
        const x = PAD_L + slot * i + (slot - bw * series.length) / 2 + j * bw;
        g.appendChild(svg('rect', { x, y: y0 - h, width: bw - 1, height: Math.max(h, 0.5), class: 'bar ' + s.cls },
          svg('title', {}, label + ' · ' + s.name + ': ' + unitLabel(v))));
      });
    });
    xLabels(g, labels, (i) => PAD_L + slot * i + slot / 2);
    return figure(title, g, series);
  }

  /** One line per series over the labels, with an optional threshold line. */
  function lineChart(title, labels, series, unitLabel, threshold) {
    unitLabel = unitLabel || fmtNumber;
    const values = series.flatMap((s) => s.values.filter((v) => v != null));
    if (threshold != null) values.push(threshold);
    const top = Math.max(0, ...values);
    const max = unitLabel === fmtSeconds ? niceDuration(top) : niceMax(top);
    const g = frame(title, max, unitLabel);
    const n = labels.length;
    const y0 = H - PAD_B;
    const xOf = (i) => (n <= 1 ? (PAD_L + W - PAD_R) / 2 : PAD_L + ((W - PAD_L - PAD_R) * i) / (n - 1));
    const yOf = (v) => y0 - (v / max) * (y0 - PAD_T);
    if (threshold != null) {
      g.appendChild(svg('line', { x1: PAD_L, x2: W - PAD_R, y1: yOf(threshold), y2: yOf(threshold), class: 'threshold' },
        svg('title', {}, 'threshold ' + unitLabel(threshold))));
    }
    for (const s of series) {
      const pts = s.values.map((v, i) => (v == null ? null : [xOf(i), yOf(v)])).filter(Boolean);
      if (pts.length > 1) {
        g.appendChild(svg('polyline', { points: pts.map((p) => p.join(',')).join(' '), class: 'line ' + s.cls }));
      }
      s.values.forEach((v, i) => {
        if (v == null) return;
        g.appendChild(svg('circle', { cx: xOf(i), cy: yOf(v), r: 3.5, class: 'dot ' + s.cls + (s.bad && s.bad[i] ? ' breach' : '') },
          svg('title', {}, labels[i] + ' · ' + s.name + ': ' + unitLabel(v))));
      });
    }
    xLabels(g, labels, xOf);
    return figure(title, g, threshold != null ? series.concat([{ name: 'threshold', cls: 'threshold' }]) : series);
  }

  function figure(title, chart, series) {
    return el('figure', { class: 'figure' },
      el('figcaption', {}, title),
      chart,
      el('div', { class: 'legend' },
        series.map((s) => el('span', {}, el('i', { class: 'swatch ' + s.cls }), s.name))));
  }

  function shortTime(iso) {
    const d = new Date(iso);
    return isNaN(d) ? '' : d.toISOString().slice(5, 16).replace('T', ' ');
  }

  // ---------------------------------------------------------------- overview

  /** How bad a dataset looks: higher is worse. */
  function severity(row) {
    let s = 0;
    const rec = row.reconciliation;
    if (row.alarms.length > 0) s = Math.max(s, 4);
    if (rec && (rec.status === 'FAILED' || rec.status === 'ERROR')) s = Math.max(s, 4);
    if (row.run && !row.run.successful) s = Math.max(s, 3);
    if (row.error) s = Math.max(s, 3);
    if (!rec || rec.status === 'ABANDONED') s = Math.max(s, 2);
    if (!row.run) s = Math.max(s, 2);
    if (rec && rec.status === 'RUNNING') s = Math.max(s, 1);
    return s;
  }

  async function renderOverview(view) {
    const [datasets, alarms] = await Promise.all([api('api/datasets'), api('api/alarms')]);
    const rows = await Promise.all(datasets.map(async (d) => {
      const row = { dataset: d, alarms: alarms.filter((a) => a.dataset === d.name && a.state === 'ALARM') };
      try {
        const [runs, recs] = await Promise.all([
          api('api/datasets/' + encodeURIComponent(d.name) + '/runs?limit=1'),
          api('api/reconciliations?limit=1&dataset=' + encodeURIComponent(d.name))]);
        row.run = runs[0];
        row.reconciliation = recs[0];
      } catch (e) {
        if (e.status === 401) throw e;
        row.error = describe(e, 'read ' + d.name);
      }
      return row;
    }));
    rows.forEach((r) => {
      r.severity = severity(r);
      r.problems = r.alarms.length +
        (r.reconciliation ? r.reconciliation.results.filter((x) => x.status !== 'PASS').length : 0);
    });
    rows.sort((a, b) => b.severity - a.severity || b.problems - a.problems ||
      a.dataset.name.localeCompare(b.dataset.name));
    const bad = rows.filter((r) => r.severity >= 3).length;
    clear(view).append(
      el('div', { class: 'heading' },
        el('h1', {}, 'Datasets'),
        el('p', { class: 'muted', 'data-testid': 'summary' },
          rows.length + ' dataset' + (rows.length === 1 ? '' : 's') + ', ' +
          (bad ? bad + ' need' + (bad === 1 ? 's' : '') + ' attention' : 'all clear') +
          ' · worst first · checked ' + fmtTime(new Date().toISOString()))),
      el('div', { class: 'cards', 'data-testid': 'datasets' }, rows.map(datasetCard)));
  }

  function datasetCard(row) {
    const d = row.dataset, run = row.run, rec = row.reconciliation;
    const failing = rec ? rec.results.filter((r) => r.status !== 'PASS') : [];
    const level = ['ok', 'busy', 'warn', 'bad', 'bad'][row.severity];
    return el('article', { class: 'card ' + level, 'data-dataset': d.name },
      el('header', {},
        el('h2', {}, el('a', { href: '#/dataset/' + encodeURIComponent(d.name), 'data-testid': 'dataset-link' }, d.name)),
        el('span', { class: 'muted small' }, 'pipeline ' + d.pipeline + ' · ' + d.engine),
        d.runningId ? el('span', { class: 'badge busy' }, 'reconciling') : null),
      row.error ? el('p', { class: 'error' }, row.error) : null,
      el('dl', { class: 'facts' },
        el('dt', {}, 'Last ingest'),
        el('dd', { 'data-testid': 'ingest' }, run
          ? [badge(run.status), ' ', ingestMode(run), ' · ', age(run.finishedAt),
              el('br'), 'watermark ', fmtWatermark(run, 'watermarkAfter'),
              run.watermarkLagSeconds != null ? ' (lag ' + fmtSeconds(run.watermarkLagSeconds) + ')' : '']
          : el('span', { class: 'muted' }, 'no run report yet')),
        el('dt', {}, 'Last reconciliation'),
        el('dd', { 'data-testid': 'reconciliation' }, rec
          ? [badge(rec.status), ' ', rec.mode, ' · ', age(rec.finishedAt || rec.startedAt),
              failing.length
                ? [el('br'), 'failing: ', el('span', { class: 'failing', 'data-testid': 'failing-rules' },
                    failing.map((r) => r.ruleId + (acknowledgementOf(rec, r.ruleId) ? ' (acknowledged)' : '')).join(', '))]
                : '']
          : el('span', { class: 'muted' }, 'never reconciled')),
        el('dt', {}, 'Alarms'),
        el('dd', { 'data-testid': 'alarms' }, row.alarms.length
          ? [el('span', { class: 'badge bad' }, row.alarms.length + ' in ALARM'), ' ',
              el('span', { class: 'small' }, row.alarms.map(alarmLabel).join(', '))]
          : el('span', { class: 'muted' }, 'none in ALARM'))));
  }

  // ---------------------------------------------------------------- dataset view

  async function renderDataset(view, name) {
    const q = encodeURIComponent(name);
    const [datasets, runs, recs, alarms, quarantine] = await Promise.all([
      api('api/datasets'),
      api('api/datasets/' + q + '/runs?limit=' + HISTORY),
      api('api/reconciliations?limit=' + HISTORY + '&dataset=' + q),
      api('api/alarms?dataset=' + q),
      api('api/datasets/' + q + '/quarantine').catch((e) => ({ failure: e }))]);
    const d = datasets.find((x) => x.name === name);
    const state = { selected: recs.find((r) => r.status !== 'RUNNING') || recs[0] || null };
    clear(view).append(
      el('div', { class: 'heading' },
        el('p', { class: 'small' }, el('a', { href: '#/' }, '← all datasets')),
        el('h1', { 'data-testid': 'dataset-name' }, name),
        el('p', { class: 'muted' }, 'pipeline ' + d.pipeline + ' · engine ' + d.engine + ' · schedule ' + d.cron +
          ' · table ' + d.curatedTable + ' · key ' + d.keyColumns.join(', '))),
      startPanel(d),
      section('Ingest runs', 'runs', ingestSection(runs)),
      section('Reconciliation', 'reconciliation', reconciliationSection(recs, state, d.keyColumns)),
      section('Quarantine by reason', 'quarantine', quarantineSection(quarantine)),
      section('Alarms', 'dataset-alarms', alarmList(alarms)));
  }

  function section(title, id, ...content) {
    return el('section', { class: 'panel', 'data-testid': id }, el('h2', {}, title), content);
  }

  function ingestSection(runs) {
    if (!runs.length) return el('p', { class: 'muted' }, 'No ingest run report yet.');
    const chrono = runs.slice().reverse();
    const labels = chrono.map((r) => shortTime(r.finishedAt));
    const last = runs[0];
    return [
      el('p', { 'data-testid': 'last-run' }, 'Last run ', badge(last.status), ' ', ingestMode(last), ' finished ', fmtTime(last.finishedAt),
        ' (', age(last.finishedAt), '), watermark ', fmtWatermark(last, 'watermarkAfter'),
        last.watermarkLagSeconds != null ? ', lag ' + fmtSeconds(last.watermarkLagSeconds) : ''),
      last.error ? el('p', { class: 'error' }, last.errorCode ? last.errorCode + ': ' : '', last.error) : null,
      el('div', { class: 'charts' },
        barChart('Records per run', labels, [
          { name: 'changed', cls: 's1', values: chrono.map((r) => r.counts.recordsChanged) },
          { name: 'invalid', cls: 's3', values: chrono.map((r) => r.counts.recordsInvalid) },
          { name: 'written', cls: 's2', values: chrono.map((r) => r.counts.recordsWritten) }]),
        barChart('Files per run', labels, [
          { name: 'new', cls: 's1', values: chrono.map((r) => r.counts.filesNew) },
          { name: 'quarantined', cls: 's3', values: chrono.map((r) => r.counts.filesQuarantined) }]),
        lineChart('Watermark lag at the end of each run', labels, [
          { name: 'lag', cls: 's4', values: chrono.map((r) => r.watermarkLagSeconds) }], fmtSeconds),
        barChart('Run duration', labels, [
          { name: 'duration', cls: 's2', values: chrono.map((r) => r.durationMillis / 1000) }], fmtSeconds)),
      el('div', { class: 'scroll' }, el('table', { class: 'table' },
        el('thead', {}, el('tr', {}, ['finished', 'status', 'mode', 'files new', 'changed', 'invalid', 'written',
          '+ins', '~upd', '−del', 'late', 'watermark', 'lag', 'duration'].map((h) => el('th', {}, h)))),
        el('tbody', {}, runs.slice(0, 15).map((r) => el('tr', {},
          el('td', {}, fmtTime(r.finishedAt)), el('td', {}, badge(r.status)),
          el('td', { 'data-testid': 'run-mode' }, ingestMode(r)),
          [r.counts.filesNew, r.counts.recordsChanged, r.counts.recordsInvalid, r.counts.recordsWritten,
            r.counts.recordsInserted, r.counts.recordsUpdated, r.counts.recordsDeleted, r.counts.recordsLate]
            .map((v) => el('td', { class: 'num' }, fmtNumber(v))),
          el('td', {}, fmtWatermark(r, 'watermarkAfter')), el('td', {}, fmtSeconds(r.watermarkLagSeconds)),
          el('td', {}, fmtSeconds(r.durationMillis / 1000)))))))];
  }

  /**
   * An ingest run's mode as the job's --mode spells it ({@code full-refresh}, {@code
   * replay-quarantine}); a sweep adds how many files it found that the lookback had missed.
   */
  function ingestMode(run) {
    const name = String(run.mode || 'INCREMENTAL').toLowerCase().replace(/_/g, '-');
    return run.filesMissedByLookback != null
      ? name + ' (' + fmtNumber(run.filesMissedByLookback) + ' missed by the lookback)'
      : name;
  }

  function reconciliationSection(recs, state, keyColumns) {
    if (!recs.length) return el('p', { class: 'muted' }, 'Never reconciled: start one above.');
    const box = el('div', {});
    const draw = () => {
      clear(box).append(reportDetail(state.selected, recs, keyColumns), historyTable(recs, state, draw));
    };
    draw();
    return box;
  }

  function reportDetail(report, recs, keyColumns) {
    if (!report) return el('p', { class: 'muted' }, 'No finished reconciliation yet.');
    const done = recs.filter((r) => r.results && r.results.length).slice().reverse();
    // Acknowledgements are given and withdrawn on the latest reconciliation that checked only.
    const latest = done.length ? done[done.length - 1].id : null;
    return el('div', { 'data-testid': 'report', 'data-report-id': report.id },
      el('p', {}, badge(report.status), ' ', report.mode, ' reconciliation ', el('code', {}, report.id),
        ' · started ', fmtTime(report.startedAt), ' by ', report.trigger,
        report.windowFrom ? ' · window ' + fmtTime(report.windowFrom) + ' → ' + fmtTime(report.windowTo) : ''),
      report.error ? el('p', { class: 'error' }, report.error) : null,
      el('div', { class: 'scroll' }, el('table', { class: 'table rules' },
        el('thead', {}, el('tr', {}, ['rule', 'status', 'observed', 'threshold', 'history'].map((h) => el('th', {}, h)))),
        el('tbody', {}, report.results.map((r) => ruleRows(r, done, keyColumns, report, latest === report.id))))));
  }

  /** What the samples of the rules that do not sample keys are. */
  const SAMPLED = { run_accounting: 'runs', unprocessed_files: 'files', schema_drift: 'columns', foreign_commits: 'commits' };

  /**
   * "sample keys (3):", naming the columns of a composite key as its values are joined; "commits
   * (1):" and the like for a rule whose samples are not keys.
   */
  function sampleKeysLabel(count, keyColumns, kind) {
    if (SAMPLED[kind]) return SAMPLED[kind] + ' (' + count + '):';
    const composite = keyColumns && keyColumns.length > 1 ? ' as ' + keyColumns.join('|') : '';
    return 'sample keys (' + count + ')' + composite + ':';
  }

  /** The acknowledgement of a rule that holds after a report, or null. */
  function acknowledgementOf(report, ruleId) {
    return (report.acknowledgements || []).find((a) => a.ruleId === ruleId) || null;
  }

  /**
   * A failing rule's acknowledgement: who, when, why and what it holds for, with a button to
   * withdraw it; or, for a FAIL not acknowledged, a form to acknowledge it.
   */
  function acknowledgementPanel(r, report) {
    const ack = acknowledgementOf(report, r.ruleId);
    const path = 'api/datasets/' + encodeURIComponent(report.dataset) + '/acknowledgements';
    const out = el('p', { class: 'error small', 'data-testid': 'ack-error', hidden: true });
    const send = async (button, action, options) => {
      const key = storedKey() || await askKey('API key', 'To ' + action + ', give the API key.');
      if (!key) return;
      button.disabled = true;
      try {
        await api(options.path, Object.assign({ key }, options));
        setKey(key);
        route();
      } catch (e) {
        out.textContent = describe(e, action);
        out.hidden = false;
        button.disabled = false;
      }
    };
    if (ack) {
      const withdraw = el('button', { type: 'button', 'data-testid': 'ack-withdraw' }, 'Withdraw');
      withdraw.addEventListener('click', () => send(withdraw, 'withdraw the acknowledgement',
        { path: path + '/' + encodeURIComponent(r.ruleId), method: 'DELETE' }));
      return el('div', { class: 'ack', 'data-testid': 'acknowledgement' },
        el('p', {}, 'Acknowledged by ', el('strong', {}, ack.by), ' · ', fmtTime(ack.at),
          ' (reconciliation ', el('code', {}, ack.reconciliationId), ')',
          ack.note ? [': ', el('span', { 'data-testid': 'ack-note' }, ack.note)] : ''),
        el('p', { class: 'muted small' }, 'It does not alert while its failure observes at most ' +
          fmtNumber(ack.observed) + ' and names nothing but the ' + ack.keys.length +
          ' acknowledged; anything more alerts again, and a pass clears it. The rule\'s alarm returns' +
          ' to OK once the failing datapoint leaves its period.'),
        withdraw, out);
    }
    if (r.status !== 'FAIL') return null;
    const by = el('input', { type: 'text', maxlength: 500, placeholder: 'your name', 'aria-label': 'acknowledged by', 'data-testid': 'ack-by' });
    const note = el('input', { type: 'text', maxlength: 500, placeholder: 'why (e.g. a ticket)', 'aria-label': 'note', 'data-testid': 'ack-note-input' });
    const button = el('button', { type: 'button', 'data-testid': 'ack-button' }, 'Acknowledge');
    button.addEventListener('click', () => send(button, 'acknowledge ' + r.ruleId, {
      path, method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ rule: r.ruleId, by: by.value, note: note.value, reconciliationId: report.id })
    }));
    return el('div', { class: 'ack row' }, by, note, button, out);
  }

  /** The commit that wrote a curated row: a Tidemark run, or something else, named. */
  function blame(c) {
    if (c.snapshotId == null) return 'snapshot unknown (expired)';
    const made = c.runId ? 'run ' + c.runId : 'not a Tidemark run: ' + (c.operation || 'a commit') + ' by ' + (c.engine || 'an unnamed writer');
    return 'snapshot ' + c.snapshotId + ' · ' + made;
  }

  /**
   * A failing key rule's difference: per compared column how many keys differ, then each sample
   * key's raw version beside its curated row, the cells that differ marked.
   */
  function diffPanel(d) {
    const columns = Object.keys(d.differingKeys || {});
    const byColumn = columns.length
      ? el('p', { class: 'small', 'data-testid': 'diff-columns' }, 'Keys differing per column, of ' + fmtNumber(d.keys) + ': ',
          columns.map((c, i) => [i ? ', ' : '', el('code', {}, c), ' ' + fmtNumber(d.differingKeys[c])]))
      : null;
    const keys = d.samples.map((k) => {
      const raw = k.raw, cur = k.curated;
      const valueNames = Object.keys((raw && raw.values) || (cur && cur.values) || {});
      const cell = (v, differs) => el('td', { class: differs ? 'differs' : '' }, v == null ? el('span', { class: 'muted' }, 'NULL') : String(v));
      const rows = [
        el('tr', {}, el('th', {}, 'file'), el('td', { class: 'small' }, raw ? raw.file + (raw.position != null ? ' #' + raw.position : '') : '—'),
          el('td', { class: 'small' }, cur ? cur.dataFile : '—')),
        el('tr', {}, el('th', {}, 'change marker'), cell(raw ? raw.changeMarker : '—', raw && cur && raw.changeMarker !== cur.changeMarker),
          cell(cur ? cur.changeMarker : '—', raw && cur && raw.changeMarker !== cur.changeMarker)),
        el('tr', {}, el('th', {}, 'written by'), el('td', {}, raw ? (raw.delete ? 'a delete' : 'an upsert') : 'no valid version'),
          el('td', { 'data-testid': 'diff-blame' }, cur ? blame(cur) : 'no row'))
      ].concat(valueNames.map((c) => {
        const differs = k.differingColumns.includes(c);
        return el('tr', { 'data-column': c }, el('th', {}, c), cell(raw ? raw.values[c] : '—', differs), cell(cur ? cur.values[c] : '—', differs));
      }));
      return el('table', { class: 'table diff', 'data-testid': 'diff-key', 'data-key': k.key },
        el('caption', {}, el('code', {}, k.key), k.differingColumns.length ? ' · differs in ' + k.differingColumns.join(', ') : ''),
        el('thead', {}, el('tr', {}, el('th', {}, ''), el('th', {}, 'raw (latest valid version)'), el('th', {}, 'curated'))),
        el('tbody', {}, rows));
    });
    return el('div', { class: 'diff-panel', 'data-testid': 'diff' }, byColumn, el('div', { class: 'scroll' }, keys));
  }

  function ruleRows(r, done, keyColumns, report, isLatest) {
    const failing = r.status !== 'PASS';
    const ack = report ? acknowledgementOf(report, r.ruleId) : null;
    const row = el('tr', { class: failing ? 'failing-row' : '', 'data-rule': r.ruleId },
      el('td', {}, failing
        ? el('button', { type: 'button', class: 'link', 'aria-expanded': 'false', 'data-testid': 'rule-toggle' }, '▸ ' + r.ruleId)
        : r.ruleId),
      el('td', {}, badge(r.status), ack
        ? [' ', el('span', { class: 'badge warn', 'data-testid': 'ack-badge', title: 'acknowledged by ' + ack.by }, 'acknowledged')]
        : ''),
      el('td', { class: 'num' }, r.observed == null ? '—' : fmtNumber(r.observed)),
      el('td', { class: 'num' }, fmtNumber(r.threshold)),
      el('td', { class: 'spark' }, sparkline(r, done)));
    if (!failing) return row;
    const detail = el('tr', { class: 'detail', hidden: true, 'data-detail': r.ruleId },
      el('td', { colspan: 5 },
        el('p', { 'data-testid': 'rule-reason' }, r.reason || ''),
        r.sampleKeys.length
          ? el('div', {}, el('span', { class: 'muted small' }, sampleKeysLabel(r.sampleKeys.length, keyColumns, r.kind)),
              el('ul', { class: 'keys', 'data-testid': 'sample-keys' }, r.sampleKeys.map((k) => el('li', {}, el('code', {}, k)))))
          : el('p', { class: 'muted small' }, 'no sample keys'),
        r.diff ? diffPanel(r.diff) : null,
        report && isLatest ? acknowledgementPanel(r, report) : null));
    const button = row.querySelector('button');
    button.addEventListener('click', () => {
      detail.hidden = !detail.hidden;
      button.setAttribute('aria-expanded', String(!detail.hidden));
      button.textContent = (detail.hidden ? '▸ ' : '▾ ') + r.ruleId;
    });
    return [row, detail];
  }

  /** A rule's observed values over the reconciliation history, against its threshold. */
  function sparkline(rule, done) {
    const pts = done.map((rep) => rep.results.find((x) => x.ruleId === rule.ruleId))
      .map((x) => (x && x.observed != null ? x : null));
    const values = pts.filter(Boolean).map((x) => x.observed);
    const w = 120, h = 28;
    const max = niceMax(Math.max(rule.threshold, ...values, 0));
    const yOf = (v) => h - 3 - (v / max) * (h - 6);
    const xOf = (i) => (pts.length <= 1 ? w / 2 : 3 + ((w - 6) * i) / (pts.length - 1));
    const g = svg('svg', { viewBox: '0 0 ' + w + ' ' + h, class: 'sparkline', role: 'img',
      'aria-label': rule.ruleId + ' observed over ' + values.length + ' reconciliations' },
    svg('line', { x1: 0, x2: w, y1: yOf(rule.threshold), y2: yOf(rule.threshold), class: 'threshold' }));
    pts.forEach((x, i) => {
      if (!x) return;
      g.appendChild(svg('circle', { cx: xOf(i), cy: yOf(x.observed), r: 2.5, class: 'dot ' + (x.status === 'PASS' ? 'ok' : 'breach') },
        svg('title', {}, shortTime(done[i].startedAt) + ': ' + fmtNumber(x.observed) + ' (threshold ' + fmtNumber(x.threshold) + ')')));
    });
    return g;
  }

  function historyTable(recs, state, redraw) {
    return el('details', { class: 'history', open: recs.length > 1 },
      el('summary', {}, 'History (' + recs.length + ')'),
      el('div', { class: 'scroll' }, el('table', { class: 'table' },
        el('thead', {}, el('tr', {}, ['started', 'mode', 'status', 'trigger', 'failing rules', ''].map((h) => el('th', {}, h)))),
        el('tbody', {}, recs.map((r) => el('tr', { class: state.selected && state.selected.id === r.id ? 'selected' : '' },
          el('td', {}, fmtTime(r.startedAt)), el('td', {}, r.mode), el('td', {}, badge(r.status)), el('td', {}, r.trigger),
          el('td', {}, r.results.filter((x) => x.status !== 'PASS').map((x) => x.ruleId).join(', ') || '—'),
          el('td', {}, el('button', { type: 'button', class: 'link', onclick: () => { state.selected = r; redraw(); } }, 'show'))))))));
  }

  function quarantineSection(q) {
    if (q.failure) return el('p', { class: 'error' }, describe(q.failure, 'count quarantined rows'));
    if (!q.exists) return el('p', { class: 'muted' }, 'Nothing quarantined yet (no table ' + q.table + ').');
    const entries = Object.entries(q.byReason).sort((a, b) => b[1] - a[1]);
    if (!entries.length) return el('p', { class: 'muted' }, 'The quarantine table ' + q.table + ' is empty'
      + (q.replayed ? ' but for ' + fmtNumber(q.replayed) + ' replayed row(s), kept for audit.' : '.'));
    const max = Math.max(...entries.map((e) => e[1]));
    return [el('p', { class: 'muted' }, fmtNumber(q.total) + ' rows in ' + q.table
        + (q.replayed ? ' (and ' + fmtNumber(q.replayed) + ' replayed, kept for audit)' : '')),
      el('ul', { class: 'hbars', 'data-testid': 'quarantine-reasons' }, entries.map(([reason, n]) =>
        el('li', { 'data-reason': reason },
          el('span', { class: 'label' }, reason),
          svg('svg', { viewBox: '0 0 100 10', preserveAspectRatio: 'none', class: 'hbar', role: 'img', 'aria-label': reason + ' ' + n },
            svg('rect', { x: 0, y: 0, height: 10, width: Math.max(1, (100 * n) / max), class: 'bar s3' })),
          el('span', { class: 'num' }, fmtNumber(n)))))];
  }

  // ---------------------------------------------------------------- start a reconciliation

  /** The last mode chosen, kept across the view's refreshes. */
  let lastMode = 'window';

  function startPanel(d) {
    const mode = el('select', { id: 'mode', 'data-testid': 'mode', onchange: () => { lastMode = mode.value; } },
      el('option', { value: 'window' }, 'WINDOW: what changed since the last passed run'),
      el('option', { value: 'full' }, 'FULL: every row'));
    mode.value = lastMode;
    const status = el('div', { class: 'progress', 'data-testid': 'start-status', 'aria-live': 'polite' });
    const button = el('button', { type: 'button', 'data-testid': 'start' }, 'Start reconciliation');
    button.addEventListener('click', async () => {
      const key = await askKey('Start a reconciliation of ' + d.name,
        'Starting a reconciliation needs the API key (X-API-Key).');
      if (!key) return;
      button.disabled = true;
      clear(status).append(el('p', {}, 'Starting…'));
      try {
        const started = await api('api/reconciliations', {
          method: 'POST', key, headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ dataset: d.name, mode: mode.value })
        });
        setKey(key);
        const report = await follow(started, status);
        await showResult(status, report, d.name);
      } catch (e) {
        clear(status).append(el('p', { class: 'error', 'data-testid': 'start-error' }, describe(e, 'start a reconciliation')));
      } finally {
        button.disabled = false;
      }
    });
    return el('section', { class: 'panel start' },
      el('h2', {}, 'Reconcile now'),
      el('div', { class: 'row' }, el('label', { for: 'mode' }, 'Mode'), mode, button),
      d.runningId ? el('p', { class: 'muted' }, 'A reconciliation is running: ' + d.runningId) : null,
      status);
  }

  /** Polls the reconciliation until it is no longer RUNNING. */
  async function follow(started, status) {
    const t0 = Date.now();
    for (;;) {
      const report = await api('api/reconciliations/' + encodeURIComponent(started.id));
      if (report.status !== 'RUNNING') return report;
      clear(status).append(el('p', {}, el('span', { class: 'spinner', 'aria-hidden': 'true' }),
        ' Running ', report.mode, ' reconciliation ', el('code', {}, report.id), ' · ',
        fmtSeconds((Date.now() - t0) / 1000)));
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /**
   * Refreshes the view for the finished report (its rules, history and the alarms it moved) without
   * a reload, then shows the result where the progress was.
   */
  async function showResult(status, report, dataset) {
    const failing = report.results.filter((r) => r.status !== 'PASS');
    const result = el('div', { class: 'result', 'data-testid': 'start-result', 'data-result': report.status },
      el('p', {}, badge(report.status), ' ', report.mode, ' reconciliation ', el('code', {}, report.id), ' finished: ',
        failing.length ? failing.length + ' rule' + (failing.length === 1 ? '' : 's') + ' not passing: ' +
          failing.map((r) => r.ruleId).join(', ') : 'every rule passed', '.'),
      report.error ? el('p', { class: 'error' }, report.error) : null);
    const view = document.getElementById('view');
    try {
      await renderDataset(view, dataset);
      const fresh = view.querySelector('[data-testid="start-status"]');
      if (fresh) status = fresh;
    } catch (e) {
      notice(describe(e, 'refresh the dataset'));
    }
    clear(status).append(result);
  }

  // ---------------------------------------------------------------- alarms

  async function renderAlarms(view) {
    const alarms = await api('api/alarms');
    const order = { ALARM: 0, INSUFFICIENT_DATA: 1, OK: 2 };
    alarms.sort((a, b) => order[a.state] - order[b.state] || a.dataset.localeCompare(b.dataset) || a.alarmName.localeCompare(b.alarmName));
    const n = alarms.filter((a) => a.state === 'ALARM').length;
    clear(view).append(
      el('div', { class: 'heading' }, el('h1', {}, 'Alarms'),
        el('p', { class: 'muted', 'data-testid': 'summary' }, alarms.length + ' alarms, ' + n + ' in ALARM · evaluated now, as CloudWatch would')),
      el('section', { class: 'panel' }, alarmList(alarms, true)));
  }

  function alarmList(alarms, withDataset) {
    if (!alarms.length) return el('p', { class: 'muted' }, 'No alarms.');
    const order = { ALARM: 0, INSUFFICIENT_DATA: 1, OK: 2 };
    const sorted = alarms.slice().sort((a, b) => order[a.state] - order[b.state] || a.alarmName.localeCompare(b.alarmName));
    return el('ul', { class: 'alarms', 'data-testid': 'alarm-list' }, sorted.map((a) =>
      el('li', { class: 'alarm ' + tone(a.state), 'data-alarm': a.alarmName },
        el('details', { open: a.state === 'ALARM' },
          el('summary', {}, badge(a.state), ' ', el('strong', {}, alarmLabel(a)),
            withDataset ? el('span', { class: 'muted' }, ' · ' + a.dataset) : null,
            el('span', { class: 'muted small' }, ' · since ' + fmtTime(a.since))),
          el('p', { class: 'small' }, el('code', {}, a.alarmName)),
          el('p', { 'data-testid': 'alarm-reason' }, a.reason),
          a.condition ? el('p', { class: 'muted small' }, 'alarms when ' + a.condition) : null,
          datapoints(a)))));
  }

  /** An alarm's name without the pipeline and dataset: {@code rule-missing-keys-failing}. */
  function alarmLabel(a) {
    const marker = '-' + a.dataset + '-';
    const at = a.alarmName.indexOf(marker);
    return at >= 0 ? a.alarmName.slice(at + marker.length) : a.alarmName;
  }

  function datapoints(a) {
    if (!a.datapoints || !a.datapoints.length) return el('p', { class: 'muted small' }, 'no datapoints in the evaluation range');
    const threshold = a.condition ? Number(a.condition.split(' ')[2]) : null;
    return el('div', { 'data-testid': 'datapoints' },
      lineChart('Datapoints of ' + a.metric, a.datapoints.map((p) => shortTime(p.timestamp)),
        [{ name: a.metric, cls: 's4', values: a.datapoints.map((p) => p.value) }], fmtNumber,
        Number.isFinite(threshold) ? threshold : null),
      el('ul', { class: 'small points' }, a.datapoints.map((p) => el('li', {}, fmtTime(p.timestamp) + ': ' + fmtNumber(p.value)))));
  }

  // ---------------------------------------------------------------- unreadable reports

  /** Names the stored reports the service left out because they do not parse; hidden when none. */
  async function showUnreadable() {
    const box = document.getElementById('unreadable');
    let list;
    try {
      list = await api('api/unreadable-reports');
    } catch (e) {
      return; // The view says why the service cannot be read.
    }
    clear(box);
    box.hidden = !list || list.length === 0;
    if (box.hidden) return;
    box.append(
      el('p', {}, list.length + ' stored report' + (list.length === 1 ? '' : 's') +
        ' could not be read and ' + (list.length === 1 ? 'is' : 'are') + ' left out of this page:'),
      el('ul', { class: 'small' }, list.map((u) =>
        el('li', {}, el('code', {}, u.location), ' (' + u.kind + ' report): ' + u.reason))));
  }

  // ---------------------------------------------------------------- routing

  async function route() {
    const view = document.getElementById('view');
    const hash = location.hash || '#/';
    for (const a of document.querySelectorAll('nav a')) {
      a.classList.toggle('active', a.getAttribute('href') === hash);
    }
    notice(null);
    try {
      const m = hash.match(/^#\/dataset\/(.+)$/);
      if (m) await renderDataset(view, decodeURIComponent(m[1]));
      else if (hash === '#/alarms') await renderAlarms(view);
      else await renderOverview(view);
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 401) {
        if (storedKey()) setKey('');
        renderLocked(view, e);
      } else {
        clear(view).append(el('p', { class: 'error', 'data-testid': 'view-error' },
          e instanceof ApiFailure ? describe(e, 'show this page') : 'Cannot show this page: ' + e.message));
      }
    }
    await showUnreadable();
  }

  document.addEventListener('DOMContentLoaded', () => {
    document.getElementById('key-button').addEventListener('click', async () => {
      if (storedKey()) {
        setKey('');
      } else {
        const key = await askKey('API key', 'Used for reads when this service protects them, and to start reconciliations.');
        if (key) setKey(key);
      }
      route();
    });
    updateKeyButton();
    window.addEventListener('hashchange', route);
    route();
  });
})();
