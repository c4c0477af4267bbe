/**
 * The web apps of the acceptance suite: npm packages that ship built HTML
 * (pinned in bench/locate/real/sources.json), none of them among the sources
 * kept back for acceptance from outside the project. Desktop programs come
 * from Debian; scripts/setup.sh installs them.
 */
export const ACCEPTANCE_WEB_SOURCES = ['@picocss/pico', 'uikit', 'sneat-bootstrap-html-admin-template-free', 'fomantic-ui', 'vali-admin'];
