#!/usr/bin/env node
'use strict';
// Writes support/step-catalogue.js from the step registry (see steps/catalogue.ts).
require('../lib/runtime/register');
const fs = require('fs');
const path = require('path');
require('../steps/index.ts');
const { stepCatalogue } = require('../steps/catalogue.ts');

const file = path.join(__dirname, '..', 'support', 'step-catalogue.js');
fs.writeFileSync(file, stepCatalogue());
console.log(`written: ${file}`);
