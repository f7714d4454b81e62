// The merchant pages' one script (served at /admin/assets/admin.js, issue 18): the Copy button of a
// token shown once. Without scripts the button stays hidden and the token is selectable text.
(function () {
  var buttons = document.querySelectorAll('button[data-copy]');
  Array.prototype.forEach.call(buttons, function (button) {
    var field = document.getElementById(button.getAttribute('data-copy'));
    var status = button.parentNode.querySelector('.copy-status');
    if (!field || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(field.value).then(
        function () {
          if (status) status.textContent = 'Copied';
        },
        function () {
          field.select();
          if (status) status.textContent = 'Copy failed: the token is selected, copy it with your keyboard';
        },
      );
    });
  });
})();
