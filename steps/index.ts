// Every Glance step family; importing this registers them with Cucumber.
import './setup';
import './pointer';
import './keyboard';
import './scroll-and-wait';
import './assertions';
import './evidence';
import { registerSteps } from './define';

registerSteps();
export { STEP_REGISTRY } from './define';
