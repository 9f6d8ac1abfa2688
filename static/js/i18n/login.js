// The login page, the password change and the reset link (pages/login.js).
// Each key's Russian and English side by side; static/js/i18n.js joins the catalogues.
export default {
  "login.title": ["Вход в клуб", "Log in"],
  "login.login": ["Логин", "Login"],
  "login.password": ["Пароль", "Password"],
  "login.submit": ["Войти", "Log in"],
  "login.failed": ["Не удалось войти", "Login failed"],
  "pw.title": ["Смена пароля", "Change password"],
  "pw.forced": ["Это одноразовый пароль: выберите свой, чтобы продолжить.", "This is a one-time password: choose your own to continue."],
  "pw.current": ["Текущий пароль", "Current password"],
  "pw.new": ["Новый пароль", "New password"],
  "pw.repeat": ["Новый пароль ещё раз", "New password again"],
  "pw.submit": ["Сменить пароль", "Change password"],
  "pw.mismatch": ["Пароли не совпадают", "The passwords differ"],
  "pw.changed": ["Пароль изменён.", "Password changed."],
  "reset.title": ["Новый пароль по ссылке", "New password from a link"],
  "reset.done": ["Пароль установлен. Теперь войдите.", "Password set. Log in now."],
  "reset.notoken": ["В ссылке нет кода сброса.", "The link has no reset token."],
  "pw.rule": ["Не короче {min} символов.", "At least {min} characters."],
};
