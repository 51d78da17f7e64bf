/* Records script errors, failed loads and blocked requests in attributes of
   <html>, so that a headless browser's DOM dump shows them. */
(function () {
  'use strict';
  var root = document.documentElement, errors = [];
  function record(msg) {
    errors.push(String(msg).slice(0, 500));
    root.setAttribute('data-js-errors', JSON.stringify(errors));
    root.setAttribute('data-js-error-count', String(errors.length));
  }
  root.setAttribute('data-js-error-count', '0');
  window.addEventListener('error', function (e) {
    if (e.target && e.target !== window && e.target.tagName) {
      record('failed to load ' + e.target.tagName.toLowerCase() + ' ' + (e.target.src || e.target.href || ''));
      return;
    }
    record((e.message || 'error') + (e.filename ? ' at ' + e.filename + ':' + e.lineno + ':' + e.colno : ''));
  }, true);
  window.addEventListener('unhandledrejection', function (e) {
    record('unhandled rejection: ' + (e.reason && e.reason.message || e.reason));
  });
  document.addEventListener('securitypolicyviolation', function (e) {
    record('blocked by the page policy: ' + e.violatedDirective + ' ' + e.blockedURI);
  });
  var consoleError = console.error;
  console.error = function () {
    record(Array.prototype.join.call(arguments, ' '));
    return consoleError.apply(console, arguments);
  };
  window.stackdumpRecordError = record;
})();
