Feature: Back to a resolution the worker left
  A reused sandbox per resolution: the third scenario goes back to the first one's.

  Scenario: Narrow
    Given I open 'acme/login.html' in the browser
    Then I should see 'Log in to Acme'

  @resolution:1280x800
  Scenario: Wide
    Given I open 'acme/login.html' in the browser
    Then I should see 'Log in to Acme'

  Scenario: Narrow again
    Given I open 'acme/login.html' in the browser
    Then I should see 'Log in to Acme'
