/* Drives the report page as a user would, then records what happened in
   data-selftest on <html>. The Go test adds this script (and its hash to
   the page's policy) to a copy of a page, with P holding the expectations:
   P = {filter, filtered, total, stateFilter, stateFiltered, workersKey, mainKey}. */
(function () {
  'use strict';
  var P = window.SELFTEST;
  var results = [], steps = [];
  function q(sel) { return document.querySelector(sel); }
  function qa(sel) { return document.querySelectorAll(sel); }
  function check(name, ok, got) { results.push({ name: name, ok: !!ok, got: String(got) }); }
  function visible() { return Number(q('#count').getAttribute('data-visible-groups')); }
  function click(node) { node.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 })); }

  steps.push(function () {
    var box = q('#filter');
    box.value = P.filter;
    box.dispatchEvent(new Event('input', { bubbles: true }));
  });
  steps.push(function () {
    check('typing filters the groups', visible() === P.filtered, visible());
    check('the filter is kept in the address', decodeURIComponent(location.hash).indexOf('filter=' + P.filter) >= 0, location.hash);
    check('the list shows the filtered groups', qa('details.group').length === Math.min(100, P.filtered), qa('details.group').length);
    q('#filter').dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
  });
  steps.push(function () {
    check('Escape clears the filter', visible() === P.total && q('#filter').value === '', visible() + ' ' + q('#filter').value);
    q('#show-more').click();
  });
  steps.push(function () {
    check('show more draws the next page', qa('details.group').length === Math.min(200, P.total), qa('details.group').length);
    click(q('#flame-chart g[data-i="1"] rect'));
  });
  steps.push(function () {
    check('clicking a frame zooms in', qa('#flame-crumbs .crumb').length === 2, qa('#flame-crumbs .crumb').length);
    click(q('#flame-crumbs .crumb'));
  });
  steps.push(function () {
    check('the first crumb zooms out', qa('#flame-crumbs .crumb').length === 0, qa('#flame-crumbs .crumb').length);
    click(q('details.group > summary'));
  });
  steps.push(function () {
    var body = q('details.group[open] .body');
    check('opening a group draws its stack', body && body.querySelectorAll('ol.frames li').length > 0, body ? body.textContent.slice(0, 80) : 'no body');
    click(q('#states-chart g[data-state="' + P.stateName + '"] rect.hit'));
  });
  steps.push(function () {
    check('clicking a state bar filters by it', q('#filter').value === 'state:"' + P.stateName + '"' && visible() === P.stateFiltered,
      q('#filter').value + ' ' + visible());
    location.hash = '#group=' + P.workersKey;
  });
  steps.push(function () {
    var det = q('details.group[open]');
    check('#group= opens the group', det && det.querySelector('.body') && location.hash.indexOf(P.workersKey) >= 0, location.hash);
    var link = det && det.querySelector('.body a.glink');
    check('the group links to its creator', link, det ? det.textContent.slice(0, 120) : '');
    if (link) click(link);
  });
  steps.push(function () {
    check('the link leads to the creator group', location.hash.indexOf('group=' + P.mainKey) >= 0, location.hash);
    var opened = Array.prototype.filter.call(qa('details.group[open]'), function (d) {
      return d.textContent.indexOf(P.mainFunc) >= 0;
    });
    check('the creator group is open', opened.length > 0, opened.length);
  });

  var i = 0;
  function next() {
    if (i < steps.length) {
      try { steps[i++](); } catch (e) { check('step ' + i + ' ran', false, e && e.stack || e); }
      setTimeout(next, 250);
      return;
    }
    document.documentElement.setAttribute('data-selftest', JSON.stringify(results));
  }
  setTimeout(next, 50);
})();
