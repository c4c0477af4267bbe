#!/usr/bin/env node
'use strict';
// Writes support/step-catalogue.js from the step registry (see steps/catalogue.ts).
const fs = require('fs');
const path = require('path');
const { compiled } = require('../lib/runtime/compiled');

compiled('steps/index');
const { stepCatalogue } = compiled('steps/catalogue');

const file = path.join(__dirname, '..', 'support', 'step-catalogue.js');
fs.writeFileSync(file, stepCatalogue());
console.log(`written: ${file}`);
