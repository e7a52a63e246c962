// A review's page (/map/reviews/{id}): the photo pager's dots, like and bookmark (the count and
// the pressed state change at once and change back if the server refuses), the comments (read
// page by page, write, edit and delete one's own), the report dialog, and deleting one's review.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { element, say } from '../shared/dom.js';
import { timeAgo } from '../shared/format.js';
import { avatar, errorMessage, formatNumber, isMe, links, pager } from './cards.js';
import '../shared/share-button.js';

const article = document.getElementById('review');
const review = config.review || {};
const reviewId = String(article?.dataset.id || review.id || '').toLowerCase();
const API = '/api/v1/burger-map';
const REVIEW_API = `${API}/reviews/${encodeURIComponent(reviewId)}`;
const COMMENT_MAX = 500;

// ---- Photo pager: the dot under the photo in view ----

const photos = document.getElementById('review-photos');
const dots = [...document.querySelectorAll('.photo-dots li')];
if (photos && dots.length > 1) {
  let frame = 0;
  photos.addEventListener('scroll', () => {
    // Once per frame: scroll events come faster than the screen changes.
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      const index = Math.round(photos.scrollLeft / Math.max(1, photos.clientWidth));
      // Right-to-left pages scroll to negative offsets.
      const current = Math.min(dots.length - 1, Math.abs(index));
      dots.forEach((dot, i) => dot.classList.toggle('current', i === current));
    });
  }, { passive: true });
}

// ---- Like and bookmark ----

function readCount(button) {
  const counter = button.querySelector('.count');
  return Number(counter?.dataset.value ?? counter?.textContent.replace(/\D/g, '')) || 0;
}

function showReaction(button, pressed, count) {
  button.setAttribute('aria-pressed', pressed ? 'true' : 'false');
  const counter = button.querySelector('.count');
  if (counter) {
    counter.textContent = formatNumber(count);
    counter.dataset.value = String(count);
  }
}

/** Signed out these are login links (`a`), which need nothing from us. */
function reactionToggle(id, kind, read) {
  const button = document.querySelector(`button#${id}`);
  if (!button) return;
  button.addEventListener('click', async () => {
    // One request per button at a time, so the rollback restores what the person saw before.
    if (button.getAttribute('aria-busy') === 'true') return;
    const wasPressed = button.getAttribute('aria-pressed') === 'true';
    const wasCount = readCount(button);
    showReaction(button, !wasPressed, Math.max(0, wasCount + (wasPressed ? -1 : 1)));
    button.setAttribute('aria-busy', 'true');
    try {
      const answer = await api(wasPressed ? 'DELETE' : 'PUT', `${REVIEW_API}/${kind}`);
      if (answer) showReaction(button, read(answer).pressed, read(answer).count);
    } catch (error) {
      showReaction(button, wasPressed, wasCount);
      say(errorMessage(error, t('burger_map.js.review.reaction_failed')));
    } finally {
      button.removeAttribute('aria-busy');
    }
  });
}

reactionToggle('like-button', 'like', (answer) => ({ pressed: answer.likedByMe, count: answer.likeCount }));
reactionToggle('bookmark-button', 'bookmark', (answer) => ({ pressed: answer.bookmarkedByMe, count: answer.bookmarkCount }));

// ---- Comments ----

const heading = document.getElementById('comments-heading');
let commentCount = Number(review.commentCount) || 0;

function setCommentCount(count) {
  commentCount = Math.max(0, count);
  if (heading) heading.textContent = t('burger_map.js.review.comments', { count: formatNumber(commentCount) });
}

const commentList = document.getElementById('comments');
let comments = null;
if (commentList) {
  const empty = element('p', 'empty-note muted', t('burger_map.js.review.no_comments'));
  empty.id = 'comments-empty';
  empty.hidden = true;
  commentList.after(empty);
  comments = pager(commentList, document.getElementById('comments-more'), { render: commentItem, emptyElement: empty });
}

/** One comment: author, time, text, and for its author "edit" and "delete". */
function commentItem(comment) {
  const item = element('li', 'comment');
  item.dataset.id = comment.id;

  const header = element('div', 'comment-header');
  const author = element('a', 'comment-author');
  author.href = links.user(comment.author.id);
  author.append(avatar(comment.author), element('span', null, comment.author.nickname));
  header.append(author, timeAgo(comment.createdAt));
  const edited = element('span', 'comment-edited muted', t('burger_map.js.review.edited'));
  edited.hidden = !comment.updatedAt;
  header.append(edited);

  const text = element('p', 'comment-text', comment.text);
  item.append(header, text);

  if (isMe(comment.author.id)) {
    const actions = element('div', 'comment-tools');
    const edit = element('button', 'link-button comment-edit', t('burger_map.js.review.edit'));
    edit.type = 'button';
    const remove = element('button', 'link-button danger comment-delete', t('burger_map.js.review.delete_comment'));
    remove.type = 'button';
    actions.append(edit, remove);
    item.append(actions);
    edit.addEventListener('click', () => startEditing(item, text, edited, actions, edit));
    remove.addEventListener('click', () => deleteComment(item, remove));
  }
  return item;
}

/** Checks a comment's text; answers the message to show, or '' when it can be sent. */
function commentProblem(text) {
  if (!text.trim()) return t('burger_map.js.review.comment_empty');
  if ([...text].length > COMMENT_MAX) return t('burger_map.js.review.comment_too_long', { max: COMMENT_MAX });
  return '';
}

/** Edits a comment in place: its text becomes a text box with "save" and "cancel". */
function startEditing(item, text, edited, actions, editButton) {
  if (item.querySelector('.comment-edit-form')) return;
  const form = element('form', 'comment-edit-form');
  form.noValidate = true;
  const fieldId = `comment-edit-${item.dataset.id}`;
  const label = element('label', 'visually-hidden', t('burger_map.js.review.edit_label'));
  label.htmlFor = fieldId;
  const box = element('textarea');
  box.id = fieldId;
  box.rows = 3;
  box.maxLength = COMMENT_MAX;
  box.value = text.textContent;
  const error = element('p', 'field-error');
  error.id = `${fieldId}-error`;
  error.setAttribute('role', 'alert');
  box.setAttribute('aria-describedby', error.id);
  const buttons = element('div', 'comment-actions');
  const cancel = element('button', 'button small secondary', t('burger_map.js.review.cancel'));
  cancel.type = 'button';
  const save = element('button', 'button small', t('burger_map.js.review.save'));
  save.type = 'submit';
  buttons.append(cancel, save);
  form.append(label, box, error, buttons);

  text.hidden = true;
  actions.hidden = true;
  text.after(form);
  box.focus();

  function close() {
    form.remove();
    text.hidden = false;
    actions.hidden = false;
    editButton.focus();
  }

  cancel.addEventListener('click', close);
  form.addEventListener('keydown', (event) => { if (event.key === 'Escape') close(); });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const problem = commentProblem(box.value);
    error.textContent = problem;
    box.setAttribute('aria-invalid', problem ? 'true' : 'false');
    if (problem) {
      box.focus();
      return;
    }
    save.disabled = true;
    try {
      const updated = await api('PATCH', `${API}/comments/${encodeURIComponent(item.dataset.id)}`, { text: box.value.trim() });
      text.textContent = updated?.text ?? box.value.trim();
      edited.hidden = false;
      close();
      say(t('burger_map.js.review.comment_saved'));
    } catch (caught) {
      error.textContent = errorMessage(caught);
      box.setAttribute('aria-invalid', 'true');
      save.disabled = false;
    }
  });
}

async function deleteComment(item, button) {
  if (!window.confirm(t('burger_map.js.review.delete_comment_confirm'))) return;
  button.disabled = true;
  try {
    await api('DELETE', `${API}/comments/${encodeURIComponent(item.dataset.id)}`);
    // Focus would be lost with the item: the comment box (or the heading) takes it.
    (document.getElementById('comment-text') || heading)?.focus();
    item.remove();
    setCommentCount(commentCount - 1);
    comments?.refreshEmpty();
    say(t('burger_map.js.review.comment_deleted'));
  } catch (error) {
    button.disabled = false;
    say(errorMessage(error));
  }
}

// Writing a comment (the form is there only when signed in).
const commentForm = document.getElementById('comment-form');
const commentText = document.getElementById('comment-text');
const commentCounter = document.getElementById('comment-counter');
const commentError = document.getElementById('comment-error');

function updateCounter() {
  const length = [...commentText.value].length;
  commentCounter.textContent = `${formatNumber(length)} / ${formatNumber(COMMENT_MAX)}`;
  commentCounter.classList.toggle('is-full', length >= COMMENT_MAX);
}

if (commentForm && commentText) {
  if (commentCounter) {
    commentText.addEventListener('input', updateCounter);
    updateCounter();
  }
  commentText.addEventListener('input', () => {
    if (commentText.getAttribute('aria-invalid') === 'true' && !commentProblem(commentText.value)) {
      commentText.removeAttribute('aria-invalid');
      if (commentError) commentError.textContent = '';
    }
  });

  const submit = commentForm.querySelector('button[type=submit]');
  let posting = false;
  commentForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (posting) return;
    const problem = commentProblem(commentText.value);
    if (commentError) commentError.textContent = problem;
    if (problem) {
      commentText.setAttribute('aria-invalid', 'true');
      commentText.focus();
      return;
    }
    commentText.removeAttribute('aria-invalid');
    posting = true;
    if (submit) submit.disabled = true;
    try {
      const comment = await api('POST', `${REVIEW_API}/comments`, { text: commentText.value.trim() });
      // The list is newest first: the new comment goes on top.
      if (comment && comments) comments.prepend(commentItem(comment));
      setCommentCount(commentCount + 1);
      commentText.value = '';
      if (commentCounter) updateCounter();
      say(t('burger_map.js.review.comment_posted'));
    } catch (error) {
      if (commentError) commentError.textContent = errorMessage(error);
      commentText.setAttribute('aria-invalid', 'true');
      commentText.focus();
    } finally {
      posting = false;
      if (submit) submit.disabled = false;
    }
  });
}

// ---- Report ----

const reportButton = document.getElementById('report-button');
const dialog = document.getElementById('report-dialog');
const reportForm = document.getElementById('report-form');
const reportReason = document.getElementById('report-reason');
const reportError = document.getElementById('report-error');
const reportSubmit = document.getElementById('report-submit');

if (reportButton && dialog && reportForm && reportReason) {
  reportButton.addEventListener('click', () => {
    if (reportError) reportError.textContent = '';
    reportReason.removeAttribute('aria-invalid');
    if (typeof dialog.showModal === 'function') dialog.showModal();
    else dialog.setAttribute('open', '');
    reportReason.focus();
  });

  function closeDialog() {
    if (typeof dialog.close === 'function') dialog.close();
    else dialog.removeAttribute('open');
    reportButton.focus();
  }

  document.getElementById('report-cancel')?.addEventListener('click', closeDialog);
  // A tap on the backdrop (outside the dialog's box) closes it too.
  dialog.addEventListener('click', (event) => { if (event.target === dialog) closeDialog(); });

  reportForm.addEventListener('submit', async (event) => {
    // `method=dialog` would close the dialog before the server answered.
    event.preventDefault();
    const reason = reportReason.value.trim();
    if (!reason) {
      if (reportError) reportError.textContent = t('burger_map.js.review.report_empty');
      reportReason.setAttribute('aria-invalid', 'true');
      reportReason.focus();
      return;
    }
    if (reportSubmit) reportSubmit.disabled = true;
    try {
      const answer = await api('POST', `${REVIEW_API}/report`, { reason });
      reportReason.value = '';
      closeDialog();
      // Reported once is enough: the button stays as a record of it.
      reportButton.disabled = true;
      reportButton.textContent = t('burger_map.js.review.reported_button');
      say(t(answer?.hidden ? 'burger_map.js.review.reported_hidden' : 'burger_map.js.review.reported'));
    } catch (error) {
      if (reportError) reportError.textContent = errorMessage(error);
      reportReason.setAttribute('aria-invalid', 'true');
    } finally {
      if (reportSubmit) reportSubmit.disabled = false;
    }
  });
}

// ---- Delete one's own review ----

const deleteButton = document.getElementById('delete-review');
if (deleteButton) {
  deleteButton.addEventListener('click', async () => {
    if (!window.confirm(t('burger_map.js.review.delete_confirm'))) return;
    deleteButton.disabled = true;
    try {
      await api('DELETE', REVIEW_API);
      const placeId = review.place?.id;
      const placeLink = document.getElementById('review-place');
      location.assign(placeId ? links.place(placeId) : (placeLink?.getAttribute('href') || '/map'));
    } catch (error) {
      deleteButton.disabled = false;
      say(errorMessage(error));
    }
  });
}
