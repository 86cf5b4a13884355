import './../styles/base.css';
import './../styles/print.css';
import 'katex/dist/katex.min.css';

/** The print view is rendered on the server; this entry only adds its styles and a Print button. */
const button = document.createElement('button');
button.type = 'button';
button.className = 'btn btn-primary print-button';
button.textContent = 'Print';
button.addEventListener('click', () => window.print());
document.querySelector('.print-header')?.append(button);
