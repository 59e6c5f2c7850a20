/**
 * The browser script of the UI, served as /assets/app.js (same-origin, so the pages' CSP needs
 * no 'unsafe-inline'). Plain ES2020 with no build step: JSON form submission (so the edit form can
 * PUT), per-field error display, and delete with confirmation.
 */
export const APP_SCRIPT = `'use strict';
(function () {
  function showErrors(form, body) {
    var summary = form.querySelector('.form-errors');
    var fields = (body && body.fields) || {};
    form.querySelectorAll('.field-error').forEach(function (p) {
      p.hidden = true;
      p.textContent = '';
    });
    form.querySelectorAll('input').forEach(function (input) {
      input.removeAttribute('aria-invalid');
    });
    var first = null;
    Object.keys(fields).forEach(function (name) {
      var input = form.querySelector('[name="' + CSS.escape(name) + '"]');
      var p = form.querySelector('#' + CSS.escape(name) + '-error');
      if (input && p) {
        input.setAttribute('aria-invalid', 'true');
        p.textContent = fields[name];
        p.hidden = false;
        if (!first) first = input;
      }
    });
    summary.textContent = (body && body.message) || 'The request failed.';
    summary.hidden = false;
    (first || summary).focus();
  }

  document.querySelectorAll('form[data-json-method]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var data = {};
      new FormData(form).forEach(function (value, key) {
        data[key] = value;
      });
      if (/^[0-9]+$/.test(data.id || '')) data.id = Number(data.id);
      var button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      fetch(form.dataset.jsonAction, {
        method: form.dataset.jsonMethod,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(data),
      })
        .then(function (res) {
          if (res.ok) {
            window.location.assign('/users');
            return;
          }
          return res.json().then(showErrors.bind(null, form), function () {
            showErrors(form, { message: 'The server answered ' + res.status + '.' });
          });
        })
        .catch(function () {
          showErrors(form, { message: 'The server could not be reached.' });
        })
        .finally(function () {
          button.disabled = false;
        });
    });
  });

  document.querySelectorAll('button[data-apply-proposed]').forEach(function (button) {
    button.addEventListener('click', function () {
      ['name', 'pro'].forEach(function (field) {
        var input = document.getElementById(field);
        if (input) input.value = button.dataset[field];
      });
      document.getElementById('name').focus();
    });
  });

  var status = document.getElementById('status');
  document.querySelectorAll('button[data-delete-id]').forEach(function (button) {
    button.addEventListener('click', function () {
      var id = button.dataset.deleteId;
      var name = button.dataset.deleteName;
      if (!window.confirm('Delete ' + name + ' (id ' + id + ')? This cannot be undone.')) return;
      button.disabled = true;
      fetch('/' + encodeURIComponent(id), { method: 'DELETE', headers: { accept: 'application/json' } })
        .then(function (res) {
          if (res.status === 204 || res.status === 404) {
            var row = button.closest('tr');
            var table = row && row.closest('table');
            if (row) row.remove();
            // The last row gone: no empty table header, the same message as an empty list.
            if (table && !table.querySelector('tbody tr')) {
              var empty = document.createElement('p');
              empty.append('No users on this page. ');
              var add = document.createElement('a');
              add.href = '/add';
              add.textContent = 'Add one';
              empty.append(add, '.');
              table.replaceWith(empty);
            }
            status.textContent = 'Deleted ' + name + ' (id ' + id + ').';
          } else {
            button.disabled = false;
            status.textContent = 'Could not delete ' + name + ': the server answered ' + res.status + '.';
          }
        })
        .catch(function () {
          button.disabled = false;
          status.textContent = 'Could not delete ' + name + ': the server could not be reached.';
        });
    });
  });
})();
`;
