// decisions §5.2: /admin/oauth-web/#/oauth/authorize?appKey=... carries the query in the fragment,
// which never reaches the server; this page reads it and continues to the consent page.
(function () {
  var prefix = '#/oauth/authorize';
  var hash = window.location.hash || '';
  var rest = hash.slice(prefix.length);
  if (hash.indexOf(prefix) === 0 && (rest === '' || rest.charAt(0) === '?')) {
    window.location.replace('/admin/oauth/authorize' + rest);
    return;
  }
  var note = document.getElementById('oauth-web-note');
  if (note) note.textContent = 'This link does not name an authorization request. Go back to the app and start the installation again.';
})();
