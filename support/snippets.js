'use strict';
// Snippets for undefined steps that first point at the phrasings Glance
// already has nearby, since a near miss is the usual cause.
require('../lib/runtime/register');
const { editDistance } = require('../lib/config/closest.ts');

function registry() {
  const { STEP_REGISTRY } = require('../steps/define.ts');
  if (!STEP_REGISTRY.length) require('../steps/index.ts');
  return STEP_REGISTRY;
}

/** A phrase in the shape cucumber gives an undefined step: optional parts dropped, quotes as {string}. */
function comparable(text) {
  return text.replace(/\([^)]*\)/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

class GlanceSnippetSyntax {
  constructor(snippetInterface) {
    this.snippetInterface = snippetInterface;
  }

  build({ comment, generatedExpressions, functionName, stepParameterNames }) {
    const wanted = comparable(generatedExpressions[0].source);
    const nearest = registry()
      .map((s) => ({ phrase: s.phrase, distance: editDistance(comparable(s.phrase), wanted) }))
      .sort((a, b) => a.distance - b.distance)
      .slice(0, 3);
    const hint = nearest.map((n) => `//   ${n.phrase}`).join('\n');
    const names = generatedExpressions[0].parameterNames.concat(stepParameterNames).join(', ');
    const source = generatedExpressions[0].source.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
    return `// Glance has no step for this. The nearest phrasings it has:\n${hint}\n` +
      `// Or define it:\n${functionName}('${source}', async function (${names}) {\n  // ${comment}\n  return 'pending';\n});`;
  }
}

module.exports = GlanceSnippetSyntax;
