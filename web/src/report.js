// The page script of `assay report` (docs/report.md). Reads the data model from the
// <script type="application/json" id="assay-data"> block and draws every plot with ECharts
// (the global `echarts`, inlined before this script). No network, no files: the page works
// opened from disk. Text from the data goes into the DOM with textContent only, never as HTML.
//
// window.assayReport tells a test what was drawn: `cases` (case records in the data),
// `plotted` (cases drawn in the time plots: every ok case with samples), `charts`, `sections`.
(function () {
  'use strict';
  const report = {cases: 0, plotted: 0, charts: 0, sections: [], ready: false};
  window.assayReport = report;
  const data = JSON.parse(document.getElementById('assay-data').textContent);
  const cases = data.cases;
  report.cases = cases.length;
  const main = document.getElementById('assay-main');
  const nav = document.getElementById('assay-nav');
  const charts = [];
  const multiSession = data.runs.reduce((n, r) => n + r.sessions.length, 0) > 1;

  // ---- small helpers ------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }
  function section(id, title, intro) {
    const s = el('section', {id: id}, el('h2', {}, title));
    if (intro) s.append(el('p', {class: 'intro'}, intro));
    main.append(s);
    nav.append(el('a', {href: '#' + id}, title));
    report.sections.push(id);
    return s;
  }
  function chart(parent, title, height) {
    const box = el('div', {class: 'chart', style: 'height:' + (height || 380) + 'px'});
    parent.append(el('h3', {}, title), box);
    const c = echarts.init(box, null, {renderer: 'canvas'});
    charts.push(c);
    report.charts += 1;
    return c;
  }
  function table(parent, head, rows) {
    const t = el('table', {}, el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))));
    const body = el('tbody');
    for (const r of rows) body.append(el('tr', {}, ...r.map((x) => (x instanceof Node ? el('td', {}, x) : el('td', {}, x)))));
    t.append(body);
    parent.append(t);
    return t;
  }
  const fmt = (x, d) => (x === undefined || x === null || !isFinite(x) ? '–' : Number(x).toPrecision(d || 4));
  const fmtP = (p) => (p === undefined || p === null ? '–' : p <= 0 ? '< 1e-16' : p < 1e-3 ? p.toExponential(1) : p.toFixed(3));
  const unique = (xs) => [...new Set(xs)];
  // ECharts renders a tooltip formatter's string as HTML: every text from the data goes through this.
  // Math.min(...a) throws a RangeError past ~10^5 elements (the call's argument limit).
  const minOf = (a) => a.reduce((m, x) => (x < m ? x : m), Infinity);
  const maxOf = (a) => a.reduce((m, x) => (x > m ? x : m), -Infinity);
  const esc = (x) => String(x).replace(/[&<>"']/g, (ch) => '&#' + ch.charCodeAt(0) + ';');
  // The time unit that keeps a bench's medians readable.
  function timeUnit(maxNs) {
    if (maxNs < 1e3) return {name: 'ns', div: 1};
    if (maxNs < 1e6) return {name: 'µs', div: 1e3};
    if (maxNs < 1e9) return {name: 'ms', div: 1e6};
    return {name: 's', div: 1e9};
  }
  const caseLabel = (c) => c.backend + ' · ' + c.point + (multiSession ? ' · run ' + (c.run + 1) + '/' + (c.session + 1) : '');
  const byBench = (b) => cases.filter((c) => c.bench === b.name);
  const dataZoomFor = (n, horizontal) =>
    n > 24 ? [{type: 'slider', start: 0, end: Math.min(100, 2400 / n)}, {type: 'inside'}] : [];  // a fraction of a % past 2400
  // Times on the axes are UTC, as every time the documents hold.
  const base = {animation: false, useUTC: true, tooltip: {confine: true}, legend: {type: 'scroll', top: 0}};

  // A point with a vertical (or horizontal) interval: median marker and whiskers, drawn by a
  // custom series so that several backends per category sit side by side. A point whose value 5 is
  // 1 has an open lower end (a bound at or below 0, which a log axis cannot show): its lower
  // whisker is dashed, without a cap, drawn to the value given in its place.
  function intervalSeries(name, points, slot, slots, horizontal) {
    return {
      type: 'custom', name: name,
      encode: horizontal ? {x: [1, 2, 3], y: 0} : {x: 0, y: [1, 2, 3]},
      data: points,
      renderItem: function (params, api) {
        const cat = api.value(0), mid = api.value(1), lo = api.value(2), hi = api.value(3);
        const band = horizontal ? api.size([0, 1])[1] : api.size([1, 0])[0];
        const off = (slot - (slots - 1) / 2) * band / (slots + 1);
        const p = (v) => {
          const q = horizontal ? api.coord([v, cat]) : api.coord([cat, v]);
          if (horizontal) q[1] += off; else q[0] += off;
          return q;
        };
        const [a, b, m] = [p(lo), p(hi), p(mid)];
        const open = api.value(5) === 1;
        const color = api.visual('color'), w = 4;
        const line = (x1, y1, x2, y2, dashed) => ({type: 'line', shape: {x1, y1, x2, y2},
          style: {stroke: color, lineWidth: 1.5, lineDash: dashed ? [3, 3] : null}});
        const caps = horizontal
          ? [line(a[0], a[1] - w, a[0], a[1] + w), line(b[0], b[1] - w, b[0], b[1] + w)]
          : [line(a[0] - w, a[1], a[0] + w, a[1]), line(b[0] - w, b[1], b[0] + w, b[1])];
        if (open) caps.shift();
        return {type: 'group', children: [line(a[0], a[1], m[0], m[1], open), line(m[0], m[1], b[0], b[1]), ...caps,
          {type: 'circle', shape: {cx: m[0], cy: m[1], r: 3.5}, style: {fill: color}}]};
      },
    };
  }

  // ---- overview ------------------------------------------------------------------------------
  function overview() {
    const s = section('overview', 'Runs', 'The results documents in this report, one row per session.');
    const rows = [];
    data.runs.forEach((r, i) => r.sessions.forEach((x, j) => rows.push([
      (i + 1) + '/' + (j + 1), r.label, x.suite, x.tag || '–', x.device.name || x.device.kind, x.mode,
      x.started_utc, (x.git_commit || '–').slice(0, 12) + (x.git_dirty ? ' (dirty)' : ''), x.cases])));
    table(s, ['run/session', 'argument', 'suite', 'tag', 'device', 'mode', 'started (UTC)', 'commit', 'cases'], rows);
    const counts = {};
    for (const c of cases) counts[c.status] = (counts[c.status] || 0) + 1;
    s.append(el('p', {}, Object.entries(counts).map(([k, v]) => v + ' ' + k).join(', ') || 'no cases'));
    // Every case the plots leave out, ok ones too (`assay check` documents: checked, not timed).
    const bad = cases.filter((c) => c.status !== 'ok' || !c.plotted);
    if (bad.length) {
      s.append(el('h3', {}, 'Cases without a time'));
      table(s, ['status', 'case', 'reason'], bad.map((c) => [c.status, c.id,
        c.reason || (c.status === 'ok' ? 'checked, not timed (no samples)' : '–')]));
    }
  }

  // ---- time per backend with the CI of the median -------------------------------------------
  function times() {
    const s = section('times', 'Time per backend',
      'Median time per case (dot) with its 95% confidence interval (whiskers; the union of the ' +
      'order-statistics and batch-medians intervals of the results document). Log scale.');
    for (const b of data.benches) {
      const bc = byBench(b).filter((c) => c.plotted);
      if (!bc.length) continue;
      const points = unique(bc.slice().sort((x, y) => (x.flops || 0) - (y.flops || 0)).map((c) => c.point));
      // One slot per backend, or per backend and session where a backend has several sessions
      // (run --repeat, several RESULTS): else their points would be drawn on one pixel.
      const sessions = {};
      for (const c of bc) (sessions[c.backend] = sessions[c.backend] || new Set()).add(c.run + '/' + c.session);
      const slotOf = (c) => (sessions[c.backend].size > 1
        ? c.backend + ' (run ' + (c.run + 1) + '/' + (c.session + 1) + ')' : c.backend);
      const backends = unique(bc.map(slotOf));
      const u = timeUnit(maxOf(bc.map((c) => c.ci_hi_ns)));
      const series = backends.map((be, k) => intervalSeries(be,
        bc.filter((c) => slotOf(c) === be).map((c) => [points.indexOf(c.point), c.median_ns / u.div,
          (c.ci_lo_ns > 0 ? c.ci_lo_ns : c.median_ns / 10) / u.div, c.ci_hi_ns / u.div, cases.indexOf(c),
          c.ci_lo_ns > 0 ? 0 : 1]), k, backends.length, false));
      const ch = chart(s, b.name + ' (' + bc.length + ' cases)', 420);
      ch.setOption(Object.assign({}, base, {
        grid: {left: 70, right: 20, top: 40, bottom: points.length > 24 ? 110 : 80},
        xAxis: {type: 'category', data: points, axisLabel: {rotate: 30, fontSize: 10}},
        yAxis: {type: 'log', name: 'time (' + u.name + ')', scale: true},
        dataZoom: dataZoomFor(points.length),
        tooltip: {trigger: 'item', confine: true, formatter: (p) => {
          const c = cases[p.data[4]];
          return esc(c.id) + '<br>median ' + fmt(p.data[1]) + ' ' + u.name + ' [' + fmt(c.ci_lo_ns / u.div) + ', ' +
            fmt(p.data[3]) + ']' + (p.data[5] === 1 ? ' (the lower bound is at or below 0: drawn open)' : '') +
            '<br>' + c.n + ' samples, ' + esc(c.stop_reason || '') + (c.variant ? '<br>variant ' + esc(c.variant) : '');
        }},
        series: series,
      }));
      ch.getDom().setAttribute('data-plotted', bc.length);
      report.plotted += bc.length;
    }
  }

  // ---- speedup over the shape axes -------------------------------------------------------------
  function speedups() {
    const withSpeedup = data.benches.filter((b) => byBench(b).some((c) => c.plotted && c.speedup !== undefined && c.backend !== b.baseline));
    if (!withSpeedup.length) return;
    const s = section('speedup', 'Speedup over the baseline',
      'Baseline median / case median per point (> 1: faster than the baseline), over the shape ' +
      'axis that varies; with several varying axes, over the points in order of FLOPs.');
    for (const b of withSpeedup) {
      const bc = byBench(b).filter((c) => c.plotted && c.speedup !== undefined && c.backend !== b.baseline);
      // One numeric axis when one parameter varies, or when the varying ones are equal in every
      // case (square GEMMs: m = n = k); else the shapes as categories in order of FLOPs.
      const ax = b.axes;
      const tied = ax.length > 0 && bc.every((c) => ax.every((a) => c.params[a] === c.params[ax[0]]));
      const oneAxis = tied ? ax.join('=') : null;
      const groups = unique(bc.map((c) => c.backend + ' ' + c.dtype));
      const points = unique(bc.slice().sort((x, y) => (x.flops || 0) - (y.flops || 0)).map((c) => c.shape));
      const xOf = (c) => (oneAxis ? c.params[ax[0]] : points.indexOf(c.shape));
      const xs = bc.map((c) => c.params[ax[0]]);
      const logX = oneAxis && minOf(xs) > 0 && maxOf(xs) / minOf(xs) >= 4;
      const series = groups.map((g) => ({
        type: multiSession ? 'scatter' : 'line', name: g, symbolSize: 7,
        data: bc.filter((c) => c.backend + ' ' + c.dtype === g).sort((x, y) => xOf(x) - xOf(y))
          .map((c) => [xOf(c), c.speedup, cases.indexOf(c)]),
      }));
      series.push({type: 'line', name: 'baseline (' + b.baseline + ')', data: [],
        markLine: {silent: true, symbol: 'none', lineStyle: {type: 'dashed', color: '#888'}, data: [{yAxis: 1}],
          label: {formatter: b.baseline}}});
      const ch = chart(s, b.name + ': speedup against ' + b.baseline, 380);
      ch.setOption(Object.assign({}, base, {
        grid: {left: 60, right: 30, top: 40, bottom: oneAxis ? 50 : 90},
        xAxis: oneAxis ? {type: logX ? 'log' : 'value', name: oneAxis, scale: true, logBase: 2}
          : {type: 'category', data: points, axisLabel: {rotate: 30, fontSize: 10}},
        yAxis: {type: 'value', name: 'speedup ×', scale: true},
        dataZoom: oneAxis ? [] : dataZoomFor(points.length),
        tooltip: {trigger: 'item', confine: true, formatter: (p) => p.data ? esc(cases[p.data[2]].id) + '<br>speedup ' + fmt(p.data[1]) + '×' : ''},
        series: series,
      }));
    }
  }

  // ---- achieved TFLOP/s and bandwidth against the roofs ---------------------------------------
  function roofs() {
    const rated = cases.filter((c) => c.plotted && c.tflops > 0 && c.flops > 0 && c.min_bytes > 0);
    if (!rated.length) return;
    const s = section('roofline', 'Roofline',
      'Achieved TFLOP/s against arithmetic intensity (FLOPs / minimum bytes moved), under the ' +
      'roofs of the GPU: the compute peak of each dtype (the document\'s peak_tflops) and the ' +
      'DRAM bandwidth (2 × memory clock × bus width). Log–log.');
    const devices = unique(rated.map((c) => data.runs[c.run].sessions[c.session].device.name));
    for (const dev of devices) {
      const dc = rated.filter((c) => data.runs[c.run].sessions[c.session].device.name === dev);
      const gbs = maxOf(dc.map((c) => data.runs[c.run].sessions[c.session].device.peak_gbs || 0));
      const ai = dc.map((c) => c.flops / c.min_bytes);
      const x0 = minOf(ai) / 4, x1 = maxOf(ai) * 4;
      const series = unique(dc.map((c) => c.backend)).map((be) => ({
        type: 'scatter', name: be, symbolSize: 8,
        data: dc.filter((c) => c.backend === be).map((c) => [c.flops / c.min_bytes, c.tflops, cases.indexOf(c)]),
      }));
      const peaks = unique(dc.map((c) => c.peak_tflops).filter((p) => p > 0));
      if (!peaks.length && gbs > 0)  // no compute peak known for these dtypes: the bandwidth roof alone
        series.push({type: 'line', name: 'roof DRAM ' + fmt(gbs) + ' GB/s', symbol: 'none',
          lineStyle: {type: 'dashed', width: 1.5}, data: [x0, x1].map((x) => [x, (x * gbs) / 1000]), tooltip: {show: false}});
      for (const peak of peaks) {
        const dtypes = unique(dc.filter((c) => c.peak_tflops === peak).map((c) => c.dtype)).join('/');
        const roof = (x) => (gbs > 0 ? Math.min(peak, (x * gbs) / 1000) : peak);
        const pts = [x0, x1];
        if (gbs > 0) { const ridge = (peak * 1000) / gbs; if (ridge > x0 && ridge < x1) pts.splice(1, 0, ridge); }
        series.push({type: 'line', name: 'roof ' + dtypes + ' ' + fmt(peak) + ' TFLOP/s', symbol: 'none',
          lineStyle: {type: 'dashed', width: 1.5}, data: pts.map((x) => [x, roof(x)]), tooltip: {show: false}});
      }
      const ch = chart(s, dev + (gbs > 0 ? ' (DRAM ' + fmt(gbs) + ' GB/s)' : ''), 420);
      ch.setOption(Object.assign({}, base, {
        grid: {left: 70, right: 30, top: 50, bottom: 50},
        xAxis: {type: 'log', name: 'FLOP/byte', nameLocation: 'middle', nameGap: 28, min: x0, max: x1,
          axisLabel: {formatter: (v) => fmt(v, 3)}},
        yAxis: {type: 'log', name: 'TFLOP/s'},
        tooltip: {trigger: 'item', confine: true, formatter: (p) => {
          if (p.data === undefined || p.data[2] === undefined) return '';
          const c = cases[p.data[2]];
          const ofPeak = c.peak_tflops > 0 ? fmt(c.pct_of_peak, 3) + '% of peak' : 'peak unknown';
          return esc(c.id) + '<br>' + fmt(c.tflops) + ' TFLOP/s (' + ofPeak + ')<br>' + fmt(c.gbs) + ' GB/s';
        }},
        series: series,
      }));
      // The same cases as fractions of each roof: which one bounds them (when a roof is known).
      if (!(gbs > 0) && !dc.some((c) => c.peak_tflops > 0)) continue;
      const labels = dc.map(caseLabel);
      const ch2 = chart(s, dev + ': % of the compute and the bandwidth roof', 360);
      ch2.setOption(Object.assign({}, base, {
        grid: {left: 60, right: 20, top: 40, bottom: 110},
        xAxis: {type: 'category', data: labels, axisLabel: {rotate: 35, fontSize: 9}},
        yAxis: {type: 'value', name: '% of roof', max: (v) => Math.max(100, Math.ceil(v.max / 10) * 10)},
        dataZoom: dataZoomFor(labels.length),
        tooltip: {trigger: 'axis', confine: true, formatter: (ps) => esc(ps[0].name) +
          ps.map((p) => '<br>' + esc(p.seriesName) + ': ' + fmt(p.value, 3) + '%').join('')},
        series: [
          {type: 'bar', name: '% of compute peak', data: dc.map((c) => (c.peak_tflops > 0 ? +fmt(c.pct_of_peak, 4) : null))},
          {type: 'bar', name: '% of DRAM bandwidth', data: dc.map((c) => (gbs > 0 ? +fmt((100 * c.gbs) / gbs, 4) : null))},
        ],
      }));
    }
  }

  // ---- sample distributions --------------------------------------------------------------------
  function distributions() {
    const s = section('distributions', 'Sample distributions',
      'Each case\'s samples relative to its median: box from the 25th to the 75th percentile, ' +
      'whiskers to the most extreme samples within 1.5 IQR, dots for the samples beyond them ' +
      '(the most extreme 40 per case).');
    for (const b of data.benches) {
      const bc = byBench(b).filter((c) => c.plotted && c.box);
      if (!bc.length) continue;
      const labels = bc.map(caseLabel);
      const outliers = [];
      bc.forEach((c, i) => c.box.outliers.forEach((v) => outliers.push([i, v])));
      // A log axis when outliers reach far (a CPU preempted: 50x the median), so the boxes stay readable.
      const rel = outliers.map((o) => o[1]).concat(bc.flatMap((c) => [c.box.whisker_lo, c.box.whisker_hi]));
      const logY = maxOf(rel) / minOf(rel) > 3;
      const ch = chart(s, b.name, 400);
      ch.setOption(Object.assign({}, base, {
        grid: {left: 70, right: 20, top: 40, bottom: 120},
        xAxis: {type: 'category', data: labels, axisLabel: {rotate: 35, fontSize: 9}},
        yAxis: logY ? {type: 'log', name: 'sample / median (log)', axisLabel: {formatter: (v) => fmt(v, 3)}}
          : {type: 'value', name: 'sample / median', scale: true},
        dataZoom: dataZoomFor(labels.length),
        tooltip: {trigger: 'item', confine: true, formatter: (p) => {
          const c = bc[p.dataIndex !== undefined && p.seriesType === 'boxplot' ? p.dataIndex : p.data[0]];
          const bx = c.box;
          return esc(c.id) + '<br>' + c.n + ' samples, median ' + fmt(c.median_ns) + ' ns<br>box ' + fmt(bx.q1) + '–' + fmt(bx.q3) +
            ', whiskers ' + fmt(bx.whisker_lo) + '–' + fmt(bx.whisker_hi) + '<br>' + bx.outliers_total + ' beyond the whiskers';
        }},
        series: [
          {type: 'boxplot', name: 'samples', data: bc.map((c) => [c.box.whisker_lo, c.box.q1, c.box.median, c.box.q3, c.box.whisker_hi])},
          {type: 'scatter', name: 'beyond the whiskers', symbolSize: 4, data: outliers},
        ],
      }));
    }
  }

  // ---- the comparison's verdicts -----------------------------------------------------------------
  const verdictColor = {FASTER: '#2e7d32', SLOWER: '#c62828', SAME: '#607d8b', AMBIGUOUS: '#ef6c00',
    NEW: '#1565c0', GONE: '#6a1b9a', FAILED: '#b71c1c'};
  function comparison() {
    const cmp = data.comparison;
    if (!cmp) return;
    const s = section('compare', 'Comparison: ' + cmp.cand_label + ' against ' + cmp.base_label,
      'Ratio candidate / base of the ' + cmp.metric + ' per case with its ' + Math.round(cmp.confidence * 100) +
      '% CI (as assay compare computes it); the shaded band is the ' + fmt(cmp.floor * 100, 3) + '% practical floor.');
    s.append(el('p', {class: cmp.gate.passed ? 'pass' : 'fail'}, 'gate: ' + (cmp.gate.passed ? 'pass' : 'FAIL') +
      (cmp.gate.reasons.length ? ' (' + cmp.gate.reasons.join('; ') + ')' : '')));
    s.append(el('p', {}, cmp.summary));
    for (const n of cmp.notes) s.append(el('p', {class: 'note'}, n));
    const withRatio = cmp.cases.filter((c) => c.ratio !== undefined);
    if (withRatio.length) {
      const ids = withRatio.map((c) => c.case_id);
      const verdicts = unique(withRatio.map((c) => c.verdict));
      const series = verdicts.map((v) => Object.assign(intervalSeries(v, withRatio.map((c, i) => (c.verdict === v
        ? [i, c.ratio, c.ratio_lo, c.ratio_hi, cmp.cases.indexOf(c)] : null)).filter((x) => x), 0, 1, true),
      {itemStyle: {color: verdictColor[v] || '#333'}}));
      const lo = 1 / (1 + cmp.floor), hi = 1 + cmp.floor;
      series.push({type: 'line', name: 'floor', data: [], itemStyle: {color: '#9e9e9e'},
        markArea: {silent: true, itemStyle: {color: 'rgba(120,120,120,0.12)'}, data: [[{xAxis: lo}, {xAxis: hi}]]},
        markLine: {silent: true, symbol: 'none', lineStyle: {color: '#555'}, data: [{xAxis: 1}], label: {formatter: '1'}}});
      // 22 px a case, but a canvas past ~32k device pixels is blank: beyond that a window of the
      // cases with a slider.
      const fit = Math.max(10, Math.floor((30000 / (window.devicePixelRatio || 1) - 60) / 22));
      const shown = Math.min(ids.length, fit);
      const ch = chart(s, 'Ratio per case', Math.max(260, 60 + 22 * shown));
      const zoom = shown < ids.length ? [{type: 'slider', yAxisIndex: 0, start: 0, end: 100 * shown / ids.length},
        {type: 'inside', yAxisIndex: 0}] : [];
      const all = withRatio.flatMap((c) => [c.ratio_lo, c.ratio_hi]).concat([lo, hi]).filter((x) => x > 0);
      ch.setOption(Object.assign({}, base, {
        grid: {left: 20, right: 30, top: 40, bottom: 40, containLabel: true}, dataZoom: zoom,
        yAxis: {type: 'category', data: ids, inverse: true, axisLabel: {fontSize: 9, width: 420, overflow: 'truncate'}},
        xAxis: {type: 'log', name: 'ratio', min: minOf(all) * 0.98, max: maxOf(all) * 1.02,
          axisLabel: {formatter: (v) => fmt(v, 3)}},
        tooltip: {trigger: 'item', confine: true, formatter: (p) => {
          if (!p.data || p.data[4] === undefined) return '';
          const c = cmp.cases[p.data[4]];
          return esc(c.case_id) + '<br>' + c.verdict + ' ratio ' + fmt(c.ratio) + ' [' + fmt(c.ratio_lo) + ', ' + fmt(c.ratio_hi) + ']';
        }},
        series: series,
      }));
    }
    const rows = cmp.cases.map((c) => {
      // FASTER? / SLOWER?: the noise did not cover drift between sessions, so the gate does not count it (compare.md).
      const unsure = (c.verdict === 'FASTER' || c.verdict === 'SLOWER') && c.noise && !c.drift_covered;
      const v = el('span', {class: 'verdict', style: 'color:' + (verdictColor[c.verdict] || '#333')}, c.verdict + (unsure ? '?' : ''));
      return [v, c.ratio !== undefined ? fmt(c.ratio) + ' [' + fmt(c.ratio_lo) + ', ' + fmt(c.ratio_hi) + ']' : '–',
        fmtP(c.p_value), c.noise || '–', c.noise ? (c.drift_covered ? 'yes' : 'no') : '–',
        c.case_id, c.why];
    });
    table(s, ['verdict', 'ratio [CI]', 'p', 'noise model', 'drift covered', 'case', 'why'], rows);
  }

  // ---- history trends with change points -------------------------------------------------------
  function history() {
    const h = data.history;
    if (!h) return;
    const s = section('history', 'History',
      'Median time per run group of each case from the history (' + h.path + (h.since_utc ? ', since ' + h.since_utc : '') +
      '), oldest first; the pins mark change points found by E-divisive means with a t-test (as assay history).');
    if (!h.trends.length) {
      s.append(el('p', {class: 'note'}, 'No recorded run of these cases in the history.'));
      return;
    }
    const benchOf = {};
    for (const c of cases) benchOf[c.id] = c.bench;
    for (const bench of unique(h.trends.map((t) => benchOf[t.case_id]))) {
      const ts = h.trends.filter((t) => benchOf[t.case_id] === bench);
      const u = timeUnit(maxOf(ts.flatMap((t) => t.points.map((p) => p.median_ns))));
      const series = ts.map((t) => ({
        type: 'line', name: t.case_id, symbolSize: 5,
        data: t.points.map((p) => [p.started_utc, p.median_ns / u.div, (p.tag || '') + ' ' + (p.git_commit || '').slice(0, 8)]),
        markPoint: {symbol: 'pin', symbolSize: 38, label: {fontSize: 9},
          data: t.change_points.map((cp) => ({name: 'change', coord: [t.points[cp.index].started_utc, t.points[cp.index].median_ns / u.div],
            value: (cp.magnitude > 0 ? '+' : '') + (cp.magnitude * 100).toFixed(1) + '%'}))},
      }));
      const ch = chart(s, bench + ': ' + ts.length + ' cases, ' + ts.reduce((n, t) => n + t.change_points.length, 0) + ' change points', 420);
      ch.setOption(Object.assign({}, base, {
        grid: {left: 70, right: 30, top: 60, bottom: 50},
        xAxis: {type: 'time', name: 'run started (UTC)', nameLocation: 'middle', nameGap: 28},
        yAxis: {type: 'log', name: 'median (' + u.name + ')', scale: true},
        tooltip: {trigger: 'item', confine: true, formatter: (p) => p.componentType === 'markPoint'
          ? esc(p.seriesName) + '<br>change point ' + p.value : esc(p.seriesName) + '<br>' + esc(p.data[0]) + ' ' + esc(p.data[2]) + '<br>' + fmt(p.data[1]) + ' ' + u.name},
        series: series,
      }));
    }
  }

  const meta = document.getElementById('assay-meta');
  meta.textContent = 'Generated ' + data.generated_utc + ' by assay report; ' + cases.length + ' cases in ' +
    data.runs.length + ' argument(s); charts by Apache ECharts ' + echarts.version + '.';
  overview();
  times();
  speedups();
  roofs();
  distributions();
  comparison();
  history();
  window.addEventListener('resize', () => charts.forEach((c) => c.resize()));
  report.ready = true;
  document.body.setAttribute('data-assay-ready', 'true');
})();
