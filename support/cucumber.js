'use strict';
// `glance/cucumber`: what a project's cucumber config needs to get Glance's
// steps, World and hooks.
//
//   // cucumber.js
//   const glance = require('glance/cucumber');
//   module.exports = { default: glance.profile({ paths: ['features/**/*.feature'] }) };
const path = require('path');

const support = path.join(__dirname, 'register.js');

/** A cucumber profile with Glance's support code, its snippets, and `overrides` merged in (arrays are appended). */
function profile(overrides = {}) {
  const { require: extra = [], worldParameters = {}, formatOptions = {}, ...rest } = overrides;
  return {
    require: [support, ...extra],
    formatOptions: { snippetInterface: 'async-await', snippetSyntax: path.join(__dirname, 'snippets.js'), ...formatOptions },
    worldParameters,
    ...rest,
  };
}

module.exports = { profile, support, steps: path.join(__dirname, '..', 'steps') };
