// Every Glance step family; importing this adds them to the registry (registerSteps() hands them to Cucumber).
import './setup';
import './pointer';
import './keyboard';
import './scroll-and-wait';
import './assertions';
import './evidence';
export { STEP_REGISTRY, stepArguments, registerSteps } from './define';
export { cucumberSteps } from './parameter-types';
